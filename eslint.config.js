import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/data/**',
      '**/test-results/**',
      '**/playwright-report/**',
      '**/.e2e-data*/**',
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
          ],
        },
      ],
    },
  },
  {
    files: [
      'packages/server/src/config.ts',
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
