import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DISPATCH_MEMORY_MB, DISPATCH_TIMEOUT } from '../infra/constructs/dispatch.ts';
import { DEAD_LETTER_CONCURRENCY, resolveEnvironment } from '../infra/environment-settings.ts';
import { FIRE_RETRY_POLICY } from '../shared/adapters/eventbridge/schedule-request.ts';
import { samplerFrom, seededRandom, simulateHerd, type HerdSettings } from './herd/herd-model.ts';

// npm run simulate:herd [-- --env prod --fires 10000,100000,1000000 --slowdown 1 --window-minutes 0
//                          --max-concurrency N --account-concurrency N]
// N fires due at one instant (every daily schedule at 02:00 UTC) through the dispatch settings of
// infra/ (cdk.json for the environment, the dispatch timeout and memory, the scheduler retry policy),
// with scan durations drawn from measured mailscan processes (bench/fixtures/scan-durations.json,
// `npm run bench:scan-durations`). `--slowdown K` multiplies every duration (internet scans are
// slower than the loopback fixture). Prints drain time, queue age, dead letters and Lambda time.
const { values } = parseArgs({
  options: {
    env: { type: 'string', default: 'prod' },
    fires: { type: 'string', default: '10000,100000,1000000' },
    slowdown: { type: 'string', default: '1' },
    'window-minutes': { type: 'string' },
    'max-concurrency': { type: 'string' },
    'account-concurrency': { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});

const cdk = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context: { environments: unknown } };
const { name, settings: env } = resolveEnvironment(values.env, cdk.context.environments);
const durations = JSON.parse(readFileSync(new URL('./fixtures/scan-durations.json', import.meta.url), 'utf8')) as {
  samples: { seconds: number }[];
  measured: string;
};
const slowdown = Number(values.slowdown);
const samples = durations.samples.map((sample) => sample.seconds * slowdown);

const settings: HerdSettings = {
  maxConcurrency: Number(values['max-concurrency'] ?? env.dispatch.maxConcurrency),
  // What the account leaves dispatch while the API bursts and the dead-letter function runs.
  accountConcurrency: Number(
    values['account-concurrency'] ?? env.dispatch.accountConcurrency - env.api.throttleBurstLimit - DEAD_LETTER_CONCURRENCY,
  ),
  // Lambda's SQS event source: 5 concurrent batches at first, up to 300 more per minute (docs/scale.md).
  scaleUpPerMinute: 300,
  functionTimeoutS: DISPATCH_TIMEOUT.toSeconds(),
  memoryMb: DISPATCH_MEMORY_MB,
  visibilityTimeoutS: env.scanQueue.visibilityTimeoutSeconds,
  maxReceiveCount: env.scanQueue.maxReceiveCount,
  retentionS: env.scanQueue.retentionDays * 86_400,
  // EventBridge Scheduler "Invocations throttle limit", default in primary Regions (docs/scale.md).
  schedulerInvocationTps: 1_000,
  schedulerMaxEventAgeS: FIRE_RETRY_POLICY.MaximumEventAgeInSeconds,
  flexibleWindowS: Number(values['window-minutes'] ?? 0) * 60,
};

const mean = samples.reduce((sum, s) => sum + s, 0) / samples.length;
const hms = (seconds: number) => {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  if (seconds < 3600) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(2)} h`;
};
process.stdout.write(
  [
    `02:00 herd, env ${name}: max concurrency ${settings.maxConcurrency} (account has ${settings.accountConcurrency}), timeout ${settings.functionTimeoutS} s, ` +
      `visibility ${settings.visibilityTimeoutS} s, ${settings.maxReceiveCount} receives, retention ${env.scanQueue.retentionDays} d, ` +
      `flexible window ${settings.flexibleWindowS / 60} min, scheduler ${settings.schedulerInvocationTps}/s with max event age ${settings.schedulerMaxEventAgeS} s`,
    `scan durations: ${samples.length} measured processes (${durations.measured}) × ${slowdown}, mean ${mean.toFixed(2)} s`,
    '',
    '| fires | drain | queue age p50 | p99 | scan DLQ | scheduler DLQ | expired | throttled receives | Lambda-s | GB-s | peak concurrency |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    '',
  ].join('\n'),
);
for (const fires of values.fires.split(',').map(Number)) {
  const random = seededRandom(Number(values.seed));
  const result = simulateHerd(fires, settings, samplerFrom(samples, random), random);
  process.stdout.write(
    `| ${fires.toLocaleString('en')} | ${hms(result.drainS)} | ${hms(result.queueAgeP50S)} | ${hms(result.queueAgeP99S)} | ${result.scanDeadLetters} | ` +
      `${result.schedulerDeadLetters} | ${result.expired} | ${result.throttledReceives} | ${Math.round(result.lambdaSeconds).toLocaleString('en')} | ` +
      `${Math.round(result.gbSeconds).toLocaleString('en')} | ${result.peakConcurrency} |\n`,
  );
}
