import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', '.ci/out/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../shared/*', '../../shared/*'],
              message: 'Nothing may read ../shared at build, run or test time.',
            },
          ],
        },
      ],
    },
  },
  {
    // core/ is platform-neutral: Web-standard APIs only.
    files: ['packages/sdk/src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: "The SDK's core is platform-neutral: no node:* imports." },
            {
              group: ['undici', 'ws'],
              message: "The SDK's core is platform-neutral: no transport libraries.",
            },
            {
              group: [
                '../crypto/*',
                '../transport/*',
                '../webhook/*',
                '@agent-messaging/dev',
                '@agent-messaging/dev/*',
              ],
              message: 'Imports flow one way: core imports nothing above it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/sdk/src/crypto/**/*.ts'],
    ignores: [
      'packages/sdk/src/crypto/backend/node*.ts',
      'packages/sdk/src/crypto/key-store/file*.ts',
      'packages/sdk/src/crypto/**/*.node.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*'],
              message: "Only *.node.ts / backend/node*.ts files in the SDK's crypto may touch node:*.",
            },
            {
              group: ['../transport/*', '../webhook/*', '@agent-messaging/dev', '@agent-messaging/dev/*'],
              message: 'Imports flow one way: crypto imports only core.',
            },
          ],
        },
      ],
    },
  },
  {
    // The SDK never imports the dev package (docs/architecture.md).
    files: ['packages/sdk/src/**/*.ts'],
    ignores: ['packages/sdk/src/core/**/*.ts', 'packages/sdk/src/crypto/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@agent-messaging/dev', '@agent-messaging/dev/*'],
              message: 'The SDK never imports the dev package.',
            },
            { group: ['**/dev/src/*'], message: 'The SDK never imports the dev package.' },
          ],
        },
      ],
    },
  },
  {
    // The dev package reaches the SDK through its public entries only (docs/architecture.md).
    files: ['packages/dev/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/sdk/src/*', 'agent-messaging-sdk/src/*', 'agent-messaging-sdk/dist/*'],
              message:
                'The dev package imports the SDK by its entries: agent-messaging-sdk, /crypto, /webhook, /protocol.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable' },
    },
  },
);
