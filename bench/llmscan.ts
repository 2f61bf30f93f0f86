import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { engineReportSchema } from '../lib/report.ts';
import { buildEngineOf } from '../layers/build.ts';
import { startFakeModel, type FakeModelServer } from '../layers/llmscan/test/helpers/fake-model-server.ts';
import { DOCUMENTS, SECRET_CANARY, SYSTEM_CANARY, SYSTEM_PROMPT } from '../layers/llmscan/test/helpers/planted.ts';
import { PROMPTFOO, referenceCases, runPromptfoo } from '../layers/llmscan/test/helpers/promptfoo.ts';
import { writePeakRssHook } from '../layers/mailscan/test/helpers/peak-rss.ts';
import { formatSpread, interleaved, pairedRatios } from './paired.ts';

// npm run bench:llm [-- --rounds 3 --latency 500 --repeats 3]: the built llmscan and promptfoo
// (npm run reference-tools) send the same seeded single-message prompts (every probe
// of the prompt_injection, system_prompt, data, output and jailbreak families, `repeats` times)
// to the vulnerable loopback assistant answering after `latency` ms, at the same concurrency (4),
// interleaved (paired/interleaved, bench/paired.ts). Equal work is checked from the server's side
// every round: the same number of completions and output tokens for both. Prints wall times,
// the paired ratios promptfoo / llmscan, llmscan's peak RSS and CPU time.
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    latency: { type: 'string', default: '500' },
    repeats: { type: 'string', default: '3' },
  },
});
const rounds = Number(values.rounds);
const repeats = Number(values.repeats);
const CONCURRENCY = 4;
const SEED = 7;
const FAMILIES = ['prompt_injection', 'system_prompt', 'data', 'output', 'jailbreak'];

if (PROMPTFOO === undefined) {
  process.stdout.write('promptfoo is not installed: npm run reference-tools\n');
  process.exit(1);
}
const work = await mkdtemp(join(tmpdir(), 'llmscan-bench-'));
const server: FakeModelServer = await startFakeModel({
  behaviour: 'vulnerable',
  systemPrompt: SYSTEM_PROMPT,
  documents: DOCUMENTS,
  latencyMs: Number(values.latency),
});
const bin = await buildEngineOf('llmscan', join(work, 'dist', 'bin', 'llmscan'));
const hook = writePeakRssHook(work);
const scopeFile = join(work, 'scope.json');
await writeFile(
  scopeFile,
  JSON.stringify({
    system_prompt_canary: SYSTEM_CANARY,
    secret_canaries: [SECRET_CANARY],
    families: FAMILIES,
    repeats,
    seed: SEED,
    rate: 10,
    max_requests: 1000,
  }),
);
const cases = referenceCases(SEED, repeats, { system: SYSTEM_CANARY, secrets: [SECRET_CANARY] }, 'every');

interface Sample {
  ms: number;
  requests: number;
  outputTokens: number;
}
const rss: number[] = [];
const cpu: number[] = [];

function served(from: number): { requests: number; outputTokens: number } {
  const entries = server.log.slice(from).filter((entry) => entry.method === 'POST');
  return { requests: entries.length, outputTokens: entries.reduce((sum, entry) => sum + entry.outputTokens, 0) };
}

async function llmscan(): Promise<Sample> {
  const from = server.log.length;
  const usage = join(work, 'usage.json');
  const started = performance.now();
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--require', hook, bin, 'scan', '--scope-json', scopeFile, '--', `${server.origin}/v1/chat/completions`],
      {
        env: { PATH: process.env.PATH ?? '', LLMSCAN_ALLOW_LOOPBACK: '1', LLMSCAN_CONCURRENCY: String(CONCURRENCY), PEAK_RSS_FILE: usage },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, out) => (error ? reject(new Error(`llmscan failed: ${error.message}`)) : resolve(out)),
    ),
  );
  const ms = performance.now() - started;
  engineReportSchema().parse(JSON.parse(stdout));
  const measured = JSON.parse(await readFile(usage, 'utf8')) as { maxRssKiB: number; cpuMs: number };
  rss.push(measured.maxRssKiB / 1024);
  cpu.push(measured.cpuMs);
  return { ms, ...served(from) };
}

async function promptfoo(): Promise<Sample> {
  const from = server.log.length;
  const run = await runPromptfoo(cases, {
    baseUrl: `${server.origin}/v1`,
    model: 'fake-model-1',
    maxTokens: 256,
    concurrency: CONCURRENCY,
    work,
  });
  return { ms: run.ms, ...served(from) };
}

try {
  const samples = await interleaved({ llmscan, promptfoo }, rounds);
  for (let round = 0; round < rounds; round += 1) {
    const [a, b] = [samples.llmscan[round], samples.promptfoo[round]];
    if (a.requests !== b.requests || a.outputTokens !== b.outputTokens) {
      process.stdout.write(
        `round ${round}: unequal work: llmscan ${a.requests} requests ${a.outputTokens} tokens, promptfoo ${b.requests} requests ${b.outputTokens} tokens\n`,
      );
    }
  }
  const first = samples.llmscan[0];
  process.stdout.write(
    [
      `model latency ${values.latency} ms, concurrency ${CONCURRENCY}, ${first.requests} completions and ${first.outputTokens} output tokens per run (counted by the server), ${rounds} rounds`,
      `llmscan   wall ${formatSpread(
        samples.llmscan.map((s) => s.ms),
        ' ms',
      )}`,
      `promptfoo wall ${formatSpread(
        samples.promptfoo.map((s) => s.ms),
        ' ms',
      )}`,
      `promptfoo / llmscan ${formatSpread(
        pairedRatios(
          samples.promptfoo.map((s) => s.ms),
          samples.llmscan.map((s) => s.ms),
        ),
        '×',
        2,
      )}`,
      `llmscan peak RSS ${formatSpread(rss, ' MB', 1)}, CPU ${formatSpread(cpu, ' ms')}`,
    ].join('\n') + '\n',
  );
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}
