import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['adam-source'] },
  ssr: { resolve: { conditions: ['adam-source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
