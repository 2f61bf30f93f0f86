import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMailscan } from '../layers/mailscan/build.ts';
import { startDnsServerProcess } from '../test/mailscan/helpers/dns-server-process.ts';
import { percentile } from './stats.ts';

// npm run bench:startup [-- --runs N --baseline PATH]: the mailscan CLI as whole processes, as the dispatch function
// starts it: `--version`, `rules`, and a `--no-reputation` scan of bench.test behind the loopback
// DNS server (no added delay), each beside a bare `node -e 0` in the same run, interleaved so
// machine load hits all alike. The compile cache is warmed by one untimed run of each first, as
// every scan after a Lambda environment's first finds it warm. --baseline adds the same rows for
// another built CLI (say, one built from an older commit), measured in the same interleaved run.
const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' }, baseline: { type: 'string' } } });
const runs = Number(values.runs);
const work = await mkdtemp(join(tmpdir(), 'bench-startup-'));
const bin = await buildMailscan(join(work, 'bin', 'mailscan'));
const cacheDir = join(work, 'compile-cache');
const config = join(work, 'config.json');
await writeFile(config, JSON.stringify({ dkim: { selectors: ['sel00', 'sel04'] } }));
const dns = await startDnsServerProcess({ zoneDir: fileURLToPath(new URL('../test/fixtures/mailscan/bench/', import.meta.url)) });

const cliRows = (label: string, path: string): Record<string, string[]> => ({
  [`${label} --version`]: [path, '--version'],
  [`${label} rules`]: [path, 'rules'],
  [`${label} scan --no-reputation`]: [path, 'scan', 'bench.test', '--no-reputation', '--nameserver', dns.address, '--config', config],
});
const commands: Record<string, string[]> = {
  'node -e 0': ['-e', '0'],
  ...cliRows('mailscan', bin),
  ...(values.baseline ? cliRows('baseline', values.baseline) : {}),
};

function timeOnce(args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env: { PATH: process.env.PATH ?? '', MAILSCAN_COMPILE_CACHE: cacheDir } }, (error) => {
      // A scan exits 1 when it has findings: a finished run all the same.
      if (error && error.code !== 1) reject(new Error(`${args.join(' ')} failed: ${error.message}`));
      else resolve(performance.now() - started);
    });
  });
}

const samples = new Map<string, number[]>(Object.keys(commands).map((name) => [name, []]));
for (const args of Object.values(commands)) await timeOnce(args);
for (let i = 0; i < runs; i += 1) {
  for (const [name, args] of Object.entries(commands)) samples.get(name)!.push(await timeOnce(args));
}
const floor = percentile(samples.get('node -e 0')!, 50);
process.stdout.write(`mailscan process start-up, median of ${runs} runs (node ${process.version}, bundle ${bin})\n\n`);
process.stdout.write('| command | p50 | p90 | p50 − node -e 0 |\n|---|---:|---:|---:|\n');
for (const [name, values] of samples) {
  const p50 = percentile(values, 50);
  process.stdout.write(`| ${name} | ${p50.toFixed(0)} ms | ${percentile(values, 90).toFixed(0)} ms | ${(p50 - floor).toFixed(0)} ms |\n`);
}
await dns.close();
await rm(work, { recursive: true, force: true });
