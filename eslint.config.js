import tseslint from 'typescript-eslint';

const AWS_SDK = { group: ['@aws-sdk/*'], message: 'Only shared/adapters import the AWS SDK.' };
const ENGINE_INTERNALS = {
  regex: '(^|/)layers/[^/]+/src(/|$)',
  message: 'Read an engine through its manifest (layers/<engine>/manifest.ts, layers/manifests.ts), not its src/ (docs/manifests.md).',
};
export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out*/**', '.data/**', '**/dist/**', 'web/dist/**', 'web/.dist-*/**', 'test-results/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      'no-restricted-imports': 'off',
    },
  },
  {
    // Lambda and scanner code: the named `z` export keeps all of zod and its locales in a bundle (~350 KiB);
    // the namespace import lets esbuild drop what the function does not use (docs/cold-start.md).
    files: ['lib/**/*.ts', 'functions/**/*.ts', 'shared/**/*.ts', 'layers/mailscan/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind='value'] > ImportSpecifier[imported.name='z'][importKind='value']",
          message: "Import zod as a namespace: import * as z from 'zod'.",
        },
      ],
    },
  },
  {
    // The service reads an engine only through its manifest (DESIGN §11, docs/manifests.md): no
    // import of layers/<engine>/src/ from shared/, functions/, local/, infra/ or scripts/.
    files: ['shared/**/*.ts', 'functions/**/*.ts', 'local/**/*.ts', 'infra/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ENGINE_INTERNALS] }] },
  },
  {
    files: ['functions/**/*.ts', 'shared/domain/**/*.ts', 'shared/services/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [AWS_SDK, ENGINE_INTERNALS] }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'layers/*/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['*.js'], ...tseslint.configs.disableTypeChecked },
);
