import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBlobFor } from '../../layers/mailscan/src/snapshot-blob.ts';
import { makeMailscanRunner } from '../../shared/adapters/runners/mailscan-runner.ts';
import { snapshotNodeOptions } from '../../shared/adapters/runners/mailscan-snapshot.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { buildCli } from '../mailscan/helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../mailscan/helpers/dns-server.ts';
import { zoneDir } from '../mailscan/helpers/fixtures.ts';

/**
 * The mailscan runner starts the CLI from its start-up snapshot only when the node it runs accepts
 * the blob, and otherwise runs the plain bundle: a missing, foreign or damaged blob never fails a
 * scan. Each case runs on its own copy of the built layer (a blob to damage, a path of its own
 * for the runner's per-blob probe) with a `node` that logs its command lines before running the
 * real one (the blob needs the exact binary that built it).
 */
describe('mailscan runner: the start-up snapshot', () => {
  const work = mkdtempSync(join(tmpdir(), 'mailscan-runner-snapshot-'));
  let dns: TestDnsServer;
  let built: string;
  let copies = 0;

  beforeAll(async () => {
    [dns, built] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** A copy of the layer, its blob changed by `damage`, and a logging node for it. */
  function layer(damage: (blob: string) => void = () => {}): { bin: string; node: string; commandLines: () => string[] } {
    const root = join(work, `layer-${(copies += 1)}`);
    cpSync(dirname(dirname(built)), root, { recursive: true });
    const bin = join(root, 'bin', 'mailscan');
    damage(snapshotBlobFor(bin));
    const log = join(root, 'node.log');
    const node = join(root, 'node');
    writeFileSync(node, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${process.execPath}' "$@"\n`);
    chmodSync(node, 0o755);
    return { bin, node, commandLines: () => readFileSync(log, 'utf8').trim().split('\n') };
  }

  async function scanWith(bin: string, node: string) {
    const runner = makeMailscanRunner({
      bin,
      node,
      env: { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address, MAILSCAN_ALLOW_PRIVATE: '1' },
    });
    return runner.run({
      tenant: 't',
      scanType: 'email_security',
      target: 'bare.test',
      scope: { reputation: false },
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      logger: silentLogger,
    });
  }

  it('scans from the snapshot when the node accepts it, with the same result as the plain bundle', async () => {
    const good = layer();
    const plain = layer((blob) => rmSync(blob));

    const [fromSnapshot, fromBundle] = await Promise.all([scanWith(good.bin, good.node), scanWith(plain.bin, plain.node)]);

    const scans = good.commandLines().filter((line) => line.includes(' scan '));
    expect(scans).toHaveLength(1);
    expect(scans[0]).toMatch(/^--snapshot-blob \S+\/snapshots\/mailscan\.blob \S+\/bin\/mailscan scan /);
    expect(fromSnapshot.findings.length).toBeGreaterThan(0);
    expect(fromSnapshot).toEqual(fromBundle);
    // A second scan reuses the probe's verdict: one probe per node and blob.
    await scanWith(good.bin, good.node);
    expect(good.commandLines().filter((line) => line.endsWith(' --version'))).toHaveLength(1);
  });

  it.each([
    ['missing', (blob: string) => rmSync(blob)],
    ['garbage', (blob: string) => writeFileSync(blob, 'not a snapshot\n')],
    ['truncated', (blob: string) => writeFileSync(blob, readFileSync(blob).subarray(0, 100_000))],
    [
      'damaged in the middle',
      (blob: string) => {
        const bytes = readFileSync(blob);
        bytes.fill(0xff, bytes.length >> 1, (bytes.length >> 1) + 4);
        writeFileSync(blob, bytes);
      },
    ],
  ])('falls back to the plain bundle when the blob is %s', async (_name, damage) => {
    const copy = layer(damage);

    expect(await snapshotNodeOptions(copy.node, copy.bin)).toEqual([]);
    const result = await scanWith(copy.bin, copy.node);

    expect(result.findings.length).toBeGreaterThan(0);
    expect(copy.commandLines().filter((line) => line.includes('--snapshot-blob') && line.includes(' scan '))).toEqual([]);
  });
});
