import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Forbids `packages/server/src/<folder>` (tests aside) from importing the given siblings. */
function serverLayer(folder, forbidden, why) {
  return [
    {
      files: [`packages/server/src/${folder}/**/*.ts`],
      ignores: ['**/*.test.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: forbidden.map((f) => ({
              group: [`../${f}/*`, `../${f}`, `../${f}.js`, `../../${f}/*`, `../../${f}.js`],
              message: `${why}.`,
            })),
          },
        ],
      },
    },
  ];
}

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/data/**',
      '**/test-results/**',
      '**/playwright-report/**',
      '**/.e2e-data*/**',
      '**/.test-compiled-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Only config.ts reads process.env.',
        },
      ],
    },
  },
  {
    // The console's shared layers stay below the features: features compose them, never the
    // reverse (app/ is where features and layers meet).
    files: [
      'packages/web/src/layout/**',
      'packages/web/src/components/**',
      'packages/web/src/lib/**',
      'packages/web/src/api/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/features/**', '**/features'],
              message: 'layout/, components/, lib/ and api/ never import features/.',
            },
            {
              group: ['**/app/**', '**/app'],
              message: 'Only app/ (entry, routes, providers) imports app/.',
            },
          ],
        },
      ],
    },
  },
  {
    // Screens link to tabs through navigation/, never through app/ (which lazy-loads the
    // screens): an import back into app/ would close a circle. Tests may use the app's providers.
    files: ['packages/web/src/features/**', 'packages/web/src/navigation/**'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/app/**', '**/app'],
              message: 'Only app/ (entry, routes, providers) imports app/.',
            },
          ],
        },
      ],
    },
  },
  // The server's layers point one way: http → services → store / vector / engine / scraping,
  // jobs → services, both → queue (their shared contracts), with lib/ below everything. A rule per folder, so a wrong import fails lint, not a review.
  ...serverLayer(
    'store',
    ['services', 'http', 'realtime', 'jobs', 'engine'],
    'store/ holds SQL and no rules',
  ),
  ...serverLayer(
    'services',
    ['http', 'realtime', 'jobs'],
    'services/ hold the rules: no HTTP, no socket, no job (their contracts are in queue/)',
  ),
  ...serverLayer(
    'queue',
    ['services', 'http', 'realtime', 'jobs', 'cli'],
    'queue/ is the contract services/ and jobs/ share, below both',
  ),
  ...serverLayer('realtime', ['http'], 'realtime/ is a core without HTTP routes'),
  ...serverLayer(
    'http',
    [
      'store',
      'jobs',
      'queue',
      'vector',
      'engine',
      'embedding',
      'pipeline',
      'scraping',
      'crawl',
      'documents',
      'keyword',
      'metrics',
      'cli',
    ],
    'http/ routes are thin: they reach the rest through services/',
  ),
  ...serverLayer(
    'metrics',
    ['services', 'http', 'realtime', 'jobs', 'store', 'engine', 'vector', 'cli'],
    'metrics/ measures the process and the machine; services read it, never the reverse',
  ),
  ...serverLayer(
    'jobs',
    ['http', 'realtime', 'cli'],
    'jobs/ never import the HTTP layer, the socket or the CLI',
  ),
  ...serverLayer(
    'lib',
    ['services', 'http', 'store', 'realtime', 'jobs', 'vector', 'engine', 'pipeline', 'scraping'],
    'lib/ sits below every other folder',
  ),
  ...serverLayer(
    'keyword',
    ['services', 'http', 'realtime', 'jobs', 'cli'],
    'keyword/ is the keyword index the services use, never the reverse',
  ),
  ...['vector', 'pipeline', 'scraping', 'embedding', 'engine', 'crawl', 'documents'].flatMap(
    (folder) =>
      serverLayer(
        folder,
        ['services', 'http', 'jobs', 'cli'],
        `${folder}/ is used by services, never the reverse`,
      ),
  ),
  {
    files: [
      'packages/server/src/config.ts',
      // The test run's ADAM_COMPILED_SOURCES, read where thread modules find their entries:
      // config.ts loads zod, which no thread should.
      'packages/server/src/lib/entry-module.ts',
      '**/*.config.ts',
      '**/*.config.js',
      'scripts/**',
      'packages/web/e2e/**',
      'packages/server/test/**',
      'packages/server/bench/**',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
