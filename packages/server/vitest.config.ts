import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['adam-source'] },
  ssr: { resolve: { conditions: ['adam-source'] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two tiers: `npm run test:unit` runs the first alone, `npm test` both.
    projects: [
      {
        extends: true,
        // Next to the code, with fakes or a temporary SQLite: no server, no model.
        test: { name: 'unit', include: ['src/**/*.test.ts'] },
      },
      {
        extends: true,
        // Real servers and processes; they share one converted model.
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
