import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const X12_INDEX_ONLY = { group: ['**/x12/x12.*'], message: 'import the X12 library from x12/index.js' };

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-exports': ['error', { restrictDefaultExports: { direct: true, named: true, defaultFrom: true, namedFrom: true, namespaceFrom: true } }],
    },
  },
  {
    // platform/ is cross-cutting and knows no resource: modules plug into it, never the other way round.
    files: ['src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/modules/**', '**/gateway.js', '**/app.js', '**/mcp/**', '**/cli/**'], message: 'platform/ imports no module, app or door' }] },
      ],
    },
  },
  // The X12 library is used through its index only, so its files can change behind it; a module reaches another
  // module through its service, never its repository or tables (DESIGN.md).
  {
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/platform/**', 'src/modules/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [X12_INDEX_ONLY] }] },
  },
  // Per folder depth, so a module's own subfolders may share its repositories while leaving the module may not.
  ...[1, 2, 3].map((depth) => {
    const up = '../'.repeat(depth);
    return {
      files: [`src/modules/*/${'*/'.repeat(depth - 1)}*.ts`],
      ignores: ['src/modules/edi/x12/**'],
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: [X12_INDEX_ONLY, { group: [`${up}**/*.repository.js`, `${up}**/*.tables.js`], message: "call the other module's service, not its repository or tables" }] },
        ],
      },
    };
  }),
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  // Plain Node scripts run before the build (npm start's prestart): linted without types, with Node's globals.
  {
    files: ['scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly' } },
  },
  // The portal widget is browser JavaScript served as is (no build step): linted without types, with the browser's globals.
  {
    files: ['src/modules/portal/widget/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'script',
      globals: Object.fromEntries(
        ['document', 'location', 'customElements', 'HTMLElement', 'ShadowRoot', 'CSSStyleSheet', 'CustomEvent', 'AbortController', 'URL', 'URLSearchParams', 'fetch', 'console', 'getComputedStyle', 'matchMedia'].map((name) => [name, 'readonly']),
      ),
    },
  },
  { files: ['eslint.config.js', 'vitest.config.ts'], rules: { 'no-restricted-exports': 'off' } },
);
