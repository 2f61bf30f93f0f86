import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/slow-first-sequencer.ts';

/**
 * One project per kind of test, so a run can pick one: `npx vitest run --project unit` takes
 * seconds. Every test file belongs to exactly one project (test/unit/test-projects.test.ts).
 */
export const TEST_PROJECTS = {
  /** Pure code and services on in-memory fakes (test/fakes): no server, no child process. */
  unit: ['test/unit/**/*.test.ts'],
  /** Generated inputs against reference implementations (Vixie cron, celery): CPU-bound, seconds each. */
  properties: ['test/properties/**/*.test.ts'],
  /** One behaviour suite per port, on every adapter (dynalite, mocks) and every fake. */
  contracts: ['test/contracts/**/*.test.ts'],
  /** The whole local runtime on loopback, a tenant per test. */
  integration: ['test/integration/**/*.test.ts'],
  /** The synthesized CDK stack, the real bundles and the bundling steps. */
  infra: ['test/infra/**/*.test.ts'],
  /** The scanner CLI against loopback DNS, HTTP and SMTP fixtures. */
  mailscan: ['layers/mailscan/test/**/*.test.ts'],
  /** Hostile input and the regressions of the security reviews. */
  security: ['test/security/**/*.test.ts'],
  /** The UI bundle and its components. */
  web: ['test/web/**/*.test.ts'],
  /** The UI in chromium against the local runtime. */
  e2e: ['test/e2e/**/*.test.ts'],
  /**
   * The engine kit and the engines built on it: every engine's `layers/<engine>/test/` by glob, so a
   * new engine's tests run without an edit here (mailscan's are a project of their own).
   */
  engines: ['test/engine-kit/**/*.test.ts', 'layers/!(mailscan)/test/**/*.test.ts'],
} as const;

/**
 * Test files at once. Vitest's default is one less than the cores: on the 2-core machines this
 * suite runs on, one file at a time. Most of the long files wait far more than they compute (nmap's
 * probe timeouts, testssl, Chromium, child runtimes restarting), so two files at once on 2 cores
 * overlap one file's waits with another's work (docs/testing.md has the measurements).
 */
const MAX_WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: MAX_WORKERS,
    sequence: { sequencer: SlowFirstSequencer },
    // CI also keeps a JSON summary so .ci/run can end on a plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: '.test-results/vitest.json' } : undefined,
    projects: Object.entries(TEST_PROJECTS).map(([name, include]) =>
      name === 'infra'
        ? {
            // The CDK files share one synth per environment (test/infra/synthesized-stack.ts): bundling
            // the functions takes seconds, so they run in one worker that keeps its modules between
            // files. Vitest runs projects of different maxWorkers only in different groups, one group
            // after the other: infra's single worker runs once the other projects are done.
            extends: true,
            test: { name, include: [...include], isolate: false, maxWorkers: 1, sequence: { groupOrder: 1 } },
          }
        : { extends: true, test: { name, include: [...include] } },
    ),
  },
});
