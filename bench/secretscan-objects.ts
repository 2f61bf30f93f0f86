/**
 * secretscan against a repository of many tiny objects (issue 33 item 7: "2 M tiny objects
 * reached 1.35 GB"): `npx tsx bench/secretscan-objects.ts [--objects 2000000] [--max-files N]
 * [--timeout 300] [--runs default|raised|both] [--node-options '--max-semi-space-size=4']`. Writes the pack (layers/secretscan/test/synthetic-pack.ts: one commit, N
 * one-line files, 1000 to a directory; written by a child process), serves it over smart HTTP on loopback, runs the built CLI
 * once with the default bounds and once with SECRETSCAN_MAX_FILES raised past N (the whole walk),
 * and prints the engine's peak RSS, wall time and verdict for each.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runEngine } from '../test/helpers/built-engine.ts';
import type { EngineReport } from '../lib/report.ts';
import { serveSyntheticPack, type SyntheticPack } from '../layers/secretscan/test/synthetic-pack.ts';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '2000000' },
    timeout: { type: 'string', default: '300' },
    'max-files': { type: 'string' },
    /** `default`, `raised` or `both`. */
    runs: { type: 'string', default: 'both' },
    /** V8 options for the engine (NODE_OPTIONS), on top of its manifest's nodeFlags (runEngine passes those). */
    'node-options': { type: 'string' },
  },
});
const blobs = Number(values.objects);
const timeout = Number(values.timeout);
const work = await mkdtemp(join(tmpdir(), 'secretscan-objects-'));
try {
  const started = performance.now();
  // Written by a process of its own: the engine's peak RSS starts from this process's at fork.
  const pack = JSON.parse(
    execFileSync(
      process.execPath,
      ['--import', 'tsx', 'layers/secretscan/test/synthetic-pack.ts', join(work, 'many.pack'), String(blobs)],
      {
        encoding: 'utf8',
      },
    ),
  ) as SyntheticPack;
  console.log(
    `pack: ${pack.objects} objects, ${(pack.bytes / 1024 / 1024).toFixed(1)} MiB, written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const server = await serveSyntheticPack(pack);
  try {
    const runs: [string, Record<string, string>][] = [
      ['default bounds', {}],
      ['SECRETSCAN_MAX_FILES raised', { SECRETSCAN_MAX_FILES: values['max-files'] ?? String(blobs + 1) }],
    ];
    for (const [name, env] of runs.filter(
      ([name]) => values.runs === 'both' || name.startsWith(values.runs === 'raised' ? 'SECRETSCAN' : 'default'),
    )) {
      const run = await runEngine('secretscan', ['scan', server.url, '--format', 'json', '--timeout', String(timeout)], {
        env: { SECRETSCAN_ALLOW_LOOPBACK: '1', ...(values['node-options'] ? { NODE_OPTIONS: values['node-options'] } : {}), ...env },
        killAfterMs: (timeout + 60) * 1000,
      });
      let verdict: string;
      try {
        const report = JSON.parse(run.stdout) as EngineReport;
        const statuses = [...new Set(report.checks.map((check) => check.status))].join(',');
        verdict = `report ${report.status}, checks ${statuses}${report.errors[0] ? `, "${report.errors[0].message.slice(0, 160)}"` : ''}`;
      } catch {
        verdict = `NO REPORT (exit ${run.code}): ${run.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 300)}`;
      }
      console.log(
        `${name}: peak RSS ${(run.maxRssKiB / 1024).toFixed(0)} MiB, wall ${(run.wallMs / 1000).toFixed(1)} s (deadline ${timeout} s), ${verdict}; load ${loadavg()[0].toFixed(1)}`,
      );
    }
  } finally {
    await server.close();
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
