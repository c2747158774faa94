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
      '**/.e2e-data/**',
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
