// ESLint for the web app: typescript-eslint's recommended rules, the React hooks rules,
// and the feature boundaries (README "Layout"): a feature under src/features/<name>/
// imports shared code (src/components, src/hooks, src/lib) and its own files, never
// another feature; only src/app/ composes features; shared code imports no feature.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const featureZones = features.map((name) => ({
  target: `./src/features/${name}`,
  from: './src/features',
  except: [`./${name}`],
  message: `A feature imports only its own files and shared code (src/components, src/hooks, src/lib); move what "${name}" shares into them, or compose the features in src/app.`,
}));

const sharedTargets = ['./src/components', './src/hooks', './src/lib', './src/test'];
const sharedZones = [
  {
    target: sharedTargets,
    from: './src/features',
    message: 'Shared code (src/components, src/hooks, src/lib, src/test) imports no feature and nothing from src/app.',
  },
  {
    // The store module is the one exception: the API client, the socket client and the
    // shared components read and write atoms through it like every other file.
    target: sharedTargets,
    from: './src/app',
    except: ['./store.ts'],
    message:
      'Shared code (src/components, src/hooks, src/lib, src/test) imports no feature and nothing from src/app but the store (src/app/store.ts).',
  },
];

// Atoms live in src/lib/state.ts (app-wide) and src/features/<name>/state.ts (one feature's),
// and everything takes them from src/app/store.ts, which re-exports them with the store.
const stateFiles = ['@/lib/state', '@/features/*/state', '**/state', './state', '../state'];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks, 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.app.json' })],
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // All of the recommended rules are on, set-state-in-effect and refs included: loads go
      // through useLoad (src/hooks/use-load.ts), state that follows a prop is adjusted during
      // render, and "latest value" refs are written by useLatest. The five paged or
      // socket-following loaders (chat list, chat thread, memories, home feed, image pages)
      // disable set-state-in-effect on the one line that starts their first fetch, each
      // saying why.
      // useLoad's dependency list is checked like an effect's (src/hooks/use-load.ts).
      'react-hooks/exhaustive-deps': ['error', { additionalHooks: '^useLoad$' }],
      'import-x/no-restricted-paths': ['error', { zones: [...featureZones, ...sharedZones] }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: stateFiles, message: 'Atoms are imported from @/app/store, the one store module.' }] },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The store module is where the atom files are gathered.
    files: ['src/app/store.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['*.{js,ts}', 'scripts/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    // The journeys run in node and hand callbacks to the browser (page.evaluate).
    files: ['e2e/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
