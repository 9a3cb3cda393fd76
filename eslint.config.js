import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.ci/out/**', '.tmp/**'] },
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
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'src/core is platform-neutral: no node:* imports.' },
            { group: ['undici', 'ws'], message: 'src/core is platform-neutral: no transport libraries.' },
            {
              group: ['../crypto/*', '../transport/*', '../webhook/*', '../server/*', '../cli/*'],
              message: 'Imports flow one way: core imports nothing above it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/crypto/**/*.ts'],
    ignores: ['src/crypto/backend/node*.ts', 'src/crypto/key-store/file*.ts', 'src/crypto/**/*.node.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*'],
              message: 'Only *.node.ts / backend/node*.ts files in src/crypto may touch node:*.',
            },
            {
              group: ['../transport/*', '../webhook/*', '../server/*', '../cli/*'],
              message: 'Imports flow one way: crypto imports only core.',
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
