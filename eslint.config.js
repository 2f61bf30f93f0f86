import tseslint from 'typescript-eslint';

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
    files: ['functions/**/*.ts', 'shared/domain/**/*.ts', 'shared/services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@aws-sdk/*'], message: 'Only shared/adapters import the AWS SDK.' }] }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
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
