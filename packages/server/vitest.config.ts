import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['adam-source'] },
  ssr: { resolve: { conditions: ['adam-source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
