import { configDefaults, defineConfig } from 'vitest/config';

const infra = 'test/infra/**/*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // CI also keeps a JSON summary so .ci/run can end on a plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: '.test-results/vitest.json' } : undefined,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts', 'layers/**/test/**/*.test.ts'], exclude: [...configDefaults.exclude, infra] },
      },
      {
        // The CDK files share one synth per environment (test/infra/synthesized-stack.ts): bundling
        // seven functions takes seconds, so they run in one worker that keeps its modules between files.
        extends: true,
        test: { name: 'infra', include: [infra], isolate: false, maxWorkers: 1 },
      },
    ],
  },
});
