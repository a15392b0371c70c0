// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import rxjsX from 'eslint-plugin-rxjs-x';

export default defineConfig(
  // .tmp-test holds the tests' scratch copies (of the demo, among others): not sources.
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp-test/**', 'test/fixtures/**/*.mjs', 'examples/**/*.mjs', 'eslint.config.js'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  rxjsX.configs.recommended,
  {
    languageOptions: {
      // One program for the whole tsconfig, not a project service per file: 25 s against 29 s
      // for `eslint .` side by side on this machine (decision 293).
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'rxjs-x/no-ignored-subscription': 'error',
      'rxjs-x/no-exposed-subjects': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Decision 164: every string on screen goes through the UI's terminal-safe Text.
    files: ['src/hosts/ui/**/*.ts', 'src/hosts/ui/**/*.tsx'],
    ignores: ['src/hosts/ui/kit/Text.tsx'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'ink', importNames: ['Text'], message: "Import Text from './Text.js': it renders untrusted strings terminal-safe." }] }],
    },
  },
  {
    files: ['test/**/*.ts', 'test/**/*.tsx'],
    rules: {
      // Tests subscribe freely and assert on what arrives; the root-subscription rule is for src/.
      'rxjs-x/no-ignored-subscription': 'off',
      'rxjs-x/no-exposed-subjects': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // `npm run conformance` and its adapter: plain Node ESM outside the TypeScript project, so
    // linted without type information (the rxjs rules all need it, and these use no rxjs); the
    // Node globals they use are listed, so a typo still fails.
    files: ['scripts/**/*.mjs', 'conformance/**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', fetch: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: Object.fromEntries(Object.keys(rxjsX.rules ?? {}).map((rule) => [`rxjs-x/${rule}`, 'off'])),
  },
);
