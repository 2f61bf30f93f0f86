/** The built executable, as the layer ships it: the catalogue, the version, and a scan through stdout. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineReportSchema } from '../../../lib/report.ts';
import { cachedEngineBuild } from '../../../test/helpers/engine-build-cache.ts';
import { catalogue } from '../src/catalogue.ts';
import { startFakeModel, type FakeModelServer } from './helpers/fake-model-server.ts';

const run = promisify(execFile);

describe('the built llmscan', () => {
  let bin: string;
  let work: string;
  let server: FakeModelServer;

  beforeAll(async () => {
    bin = await cachedEngineBuild('llmscan');
    work = await mkdtemp(join(tmpdir(), 'llmscan-cli-'));
    server = await startFakeModel({ behaviour: 'vulnerable' });
  });
  afterAll(async () => {
    await server?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('prints its catalogue and version', async () => {
    const rules = await run(process.execPath, [bin, 'rules']);
    const version = await run(process.execPath, [bin, '--version']);

    expect(JSON.parse(rules.stdout)).toEqual({ scanner: { name: 'llmscan', version: '0.1.0' }, rules: catalogue });
    expect(version.stdout).toBe('llmscan 0.1.0\n');
  });

  it('scans an endpoint and prints the report on stdout, progress and totals on stderr', async () => {
    const scope = join(work, 'scope.json');
    await writeFile(scope, JSON.stringify({ families: ['jailbreak', 'endpoint'], repeats: 1, rate: 10, seed: 3 }));

    const { stdout, stderr } = await run(
      process.execPath,
      [bin, 'scan', '--scope-json', scope, '--', `${server.origin}/v1/chat/completions`],
      {
        env: { PATH: process.env.PATH ?? '', LLMSCAN_ALLOW_LOOPBACK: '1' },
      },
    );

    const report = engineReportSchema().parse(JSON.parse(stdout));
    expect(report.findings.map((finding) => finding.rule_id).sort()).toEqual([
      'llm.endpoint.models_exposed',
      'llm.endpoint.unauthenticated',
      'llm.jailbreak.marker',
    ]);
    const totals = stderr
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.event === 'llm.totals');
    expect(totals).toMatchObject({ requests: 7, seed: 3 });
    expect(server.log).toHaveLength(7);
  });
});
