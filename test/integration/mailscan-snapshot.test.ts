import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBlobFor, snapshotScriptFor } from '../../layers/mailscan/src/snapshot-blob.ts';
import mailscan from '../../layers/mailscan/manifest.ts';
import { runnerOf } from '../../shared/adapters/runners/engine-registry.ts';
import { snapshotBuildSettled, snapshotNodeOptions } from '../../shared/adapters/runners/startup-snapshot.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { buildCli } from '../../layers/mailscan/test/helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../../layers/mailscan/test/helpers/dns-server.ts';
import { zoneDir } from '../../layers/mailscan/test/helpers/fixtures.ts';

/**
 * The mailscan runner starts the CLI from a start-up snapshot only when the node it runs accepts
 * the blob, and otherwise runs the plain bundle: a missing, foreign or damaged blob never fails a
 * scan. When the layer has no blob that node accepts but has the snapshot's script (the Lambda
 * layer), the runner makes a blob with that node in the background, once, and uses it when it is
 * accepted; a build that fails, is killed or runs out of disk leaves the bundle in use. Each case
 * runs on its own copy of the built layer (a blob or script to damage, a path of its own for the
 * runner's per-layer state) with a `node` that logs its command lines before running the real
 * one (a blob needs the exact binary that built it), and a cache folder of its own.
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

  interface Layer {
    bin: string;
    node: string;
    cache: string;
    commandLines: () => string[];
  }

  /**
   * A copy of the layer changed by `change` (its blob and script paths), a logging node for it
   * (`prelude` runs in the node's shell before the real node, for a --build-snapshot only), and a
   * cache folder.
   */
  function layer(change: (paths: { blob: string; script: string }) => void = () => {}, prelude = ''): Layer {
    const root = join(work, `layer-${(copies += 1)}`);
    cpSync(dirname(dirname(built)), root, { recursive: true });
    const bin = join(root, 'bin', 'mailscan');
    change({ blob: snapshotBlobFor(bin), script: snapshotScriptFor(bin) });
    const log = join(root, 'node.log');
    const node = join(root, 'node');
    writeFileSync(
      node,
      [
        '#!/bin/bash',
        `printf '%s\\n' "$*" >> '${log}'`,
        `case " $* " in *' --build-snapshot '*) ${prelude} ;; esac`,
        `exec '${process.execPath}' "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(node, 0o755);
    const cache = join(root, 'cache');
    return { bin, node, cache, commandLines: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
  }

  async function scanWith({ bin, node, cache }: Layer, logger: Logger = silentLogger) {
    const runner = runnerOf(mailscan, {
      bin,
      node,
      env: { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address, MAILSCAN_ALLOW_LOOPBACK: '1' },
      snapshotCache: cache,
    });
    return runner.run({
      tenant: 't',
      scanType: 'email_security',
      target: 'bare.test',
      scope: { reputation: false },
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      logger,
    });
  }

  const scanLines = (copy: Layer) => copy.commandLines().filter((line) => line.includes(' scan '));
  const builds = (copy: Layer) => copy.commandLines().filter((line) => line.includes('--build-snapshot'));
  const cacheFiles = (copy: Layer) => (existsSync(copy.cache) ? readdirSync(copy.cache) : []);
  const withoutBlob = ({ blob }: { blob: string }) => rmSync(blob);

  /** A logger that keeps what it is told. */
  function recordingLogger(): Logger & { lines: { level: string; message: string; extra: Record<string, unknown> }[] } {
    const lines: { level: string; message: string; extra: Record<string, unknown> }[] = [];
    const at =
      (level: string) =>
      (message: string, ...extra: Record<string, unknown>[]) =>
        lines.push({ level, message, extra: Object.assign({}, ...extra) as Record<string, unknown> });
    return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }

  it('scans from the snapshot when the node accepts it, with the same result as the plain bundle', async () => {
    const good = layer();
    const plain = layer(({ blob, script }) => [blob, script].forEach((path) => rmSync(path)));

    const [fromSnapshot, fromBundle] = await Promise.all([scanWith(good), scanWith(plain)]);

    const scans = scanLines(good);
    expect(scans).toHaveLength(1);
    expect(scans[0]).toMatch(/^--snapshot-blob \S+\/snapshots\/mailscan\.blob \S+\/bin\/mailscan scan /);
    expect(fromSnapshot.findings.length).toBeGreaterThan(0);
    expect(fromSnapshot).toEqual(fromBundle);
    // A second scan reuses the probe's verdict: one probe per node and blob; nothing built.
    await scanWith(good);
    expect(good.commandLines().filter((line) => line.endsWith(' --version'))).toHaveLength(1);
    expect([...builds(good), ...builds(plain)]).toEqual([]);
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
  ])('falls back to the plain bundle when the blob is %s (and the layer has no script to build one from)', async (_name, damage) => {
    const copy = layer(({ blob, script }) => {
      damage(blob);
      rmSync(script);
    });

    expect(await snapshotNodeOptions(copy.node, copy.bin, { cacheDir: copy.cache })).toEqual([]);
    const result = await scanWith(copy);

    expect(result.findings.length).toBeGreaterThan(0);
    expect(scanLines(copy).filter((line) => line.includes('--snapshot-blob'))).toEqual([]);
    expect(builds(copy)).toEqual([]);
  });

  it('with only the script in the layer (Lambda), builds one blob in the background however many scans run, and scans from it once it is accepted', async () => {
    const copy = layer(withoutBlob);
    const plain = layer(({ blob, script }) => [blob, script].forEach((path) => rmSync(path)));
    const logger = recordingLogger();

    // Every scan of the batch logs to the one logger: whichever asks first starts the build and its
    // logger hears how it ended (which of four concurrent runs asks first is not fixed).
    const [first, ...others] = await Promise.all([
      scanWith(copy, logger),
      scanWith(copy, logger),
      scanWith(copy, logger),
      scanWith(copy, logger),
    ]);
    const fromBundle = await scanWith(plain);

    // Every scan of the first batch ran the plain bundle, while one build ran beside them.
    expect(scanLines(copy)).toHaveLength(4);
    expect(scanLines(copy).filter((line) => line.includes('--snapshot-blob'))).toEqual([]);
    for (const result of [first, ...others]) expect(result).toEqual(fromBundle);
    await snapshotBuildSettled(copy.node, copy.bin, { cacheDir: copy.cache });
    expect(builds(copy)).toHaveLength(1);
    expect(builds(copy)[0]).toContain(snapshotScriptFor(copy.bin));
    // Renamed into place, nothing temporary left, and told to the logger of the scan that started the build.
    expect(cacheFiles(copy)).toEqual([expect.stringMatching(/^mailscan-[0-9a-f]{32}\.blob$/)]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'snapshot built', extra: expect.objectContaining({ engine: 'mailscan' }) }),
    );

    const fromSnapshot = await scanWith(copy);

    expect(scanLines(copy)[4]).toContain(`--snapshot-blob ${join(copy.cache, cacheFiles(copy)[0])} ${copy.bin} scan `);
    expect(fromSnapshot).toEqual(fromBundle);
    expect(builds(copy)).toHaveLength(1);
  });

  it('uses a blob an earlier process built for the same script and node without building again', async () => {
    const earlier = layer(withoutBlob);
    await snapshotNodeOptions(earlier.node, earlier.bin, { cacheDir: earlier.cache });
    await snapshotBuildSettled(earlier.node, earlier.bin, { cacheDir: earlier.cache });
    // Another copy of the same layer (another path, as a new process would be a new runner state)
    // with the same node and cache folder: the blob is found by script and node, then probed.
    const later = layer(withoutBlob);
    const shared = { ...later, node: earlier.node, cache: earlier.cache, commandLines: earlier.commandLines };

    expect(await snapshotNodeOptions(shared.node, shared.bin, { cacheDir: shared.cache })).toEqual([
      '--snapshot-blob',
      join(earlier.cache, cacheFiles(earlier)[0]),
    ]);
    expect(builds(earlier)).toHaveLength(1);
  });

  it.each([
    ['a script that is not JavaScript', ({ script }: { script: string }) => writeFileSync(script, 'this is not javascript {\n'), ''],
    [
      'a script that makes a blob which is not mailscan',
      ({ script }: { script: string }) =>
        writeFileSync(script, "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => console.log('hello'));\n"),
      '',
    ],
    // A write that fails as on a full disk: node aborts, leaving a partial file (checked against
    // a real full tmpfs too, which only root can mount).
    ['a full disk', () => {}, "trap '' XFSZ; ulimit -f 1024"],
  ])('keeps the plain bundle, without failing or holding up a scan, when the build fails: %s', async (_name, damage, prelude) => {
    const copy = layer(({ blob, script }) => {
      rmSync(blob);
      damage({ script });
    }, prelude);
    const logger = recordingLogger();

    const during = await scanWith(copy, logger);
    await snapshotBuildSettled(copy.node, copy.bin, { cacheDir: copy.cache });
    const after = await scanWith(copy);

    expect(builds(copy)).toHaveLength(1);
    expect(during.findings.length).toBeGreaterThan(0);
    expect(after).toEqual(during);
    expect(scanLines(copy).filter((line) => line.includes('--snapshot-blob'))).toEqual([]);
    expect(cacheFiles(copy)).toEqual([]);
    expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringContaining('not built') }));
  });

  it.each([
    // Killed outright (SIGKILL), as an execution environment's end would.
    ['is killed', 'kill -KILL $$', undefined],
    // Still running at its time limit: the runner stops it.
    ['outlives its time limit', 'exec sleep 600', 300],
  ])('keeps the plain bundle when the build %s, and leaves nothing behind', async (_name, prelude, buildTimeoutMs) => {
    const copy = layer(withoutBlob, prelude);

    // The first call sets this process's state for the layer (and the build's time limit).
    expect(await snapshotNodeOptions(copy.node, copy.bin, { cacheDir: copy.cache, buildTimeoutMs })).toEqual([]);
    await snapshotBuildSettled(copy.node, copy.bin, { cacheDir: copy.cache });
    const result = await scanWith(copy);

    expect(builds(copy)).toHaveLength(1);
    expect(result.findings.length).toBeGreaterThan(0);
    expect(scanLines(copy).filter((line) => line.includes('--snapshot-blob'))).toEqual([]);
    expect(cacheFiles(copy)).toEqual([]);
  });

  it('neither builds nor uses a blob in a cache folder that others may write to', async () => {
    const copy = layer(withoutBlob);
    // A blob this node accepts is there, but anyone could have put it there.
    mkdirSync(copy.cache);
    const earlier = layer(withoutBlob);
    await snapshotNodeOptions(earlier.node, earlier.bin, { cacheDir: copy.cache });
    await snapshotBuildSettled(earlier.node, earlier.bin, { cacheDir: copy.cache });
    expect(cacheFiles(copy)).toHaveLength(1);
    chmodSync(copy.cache, 0o777);
    const logger = recordingLogger();

    expect(await snapshotNodeOptions(earlier.node, copy.bin, { cacheDir: copy.cache, logger })).toEqual([]);
    await snapshotBuildSettled(earlier.node, copy.bin, { cacheDir: copy.cache });

    expect(builds(earlier)).toHaveLength(1);
    expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringContaining('not private') }));
  });

  it('removes what a killed build left in the cache folder once it is older than a build may take', async () => {
    const copy = layer(withoutBlob);
    mkdirSync(copy.cache);
    const leftover = join(copy.cache, 'mailscan-0123.blob.999-x.tmp');
    writeFileSync(leftover, 'partial');
    const old = new Date(Date.now() - 3 * 60_000);
    utimesSync(leftover, old, old);

    await snapshotNodeOptions(copy.node, copy.bin, { cacheDir: copy.cache, buildTimeoutMs: 60_000 });
    await snapshotBuildSettled(copy.node, copy.bin, { cacheDir: copy.cache });

    expect(cacheFiles(copy)).toEqual([expect.stringMatching(/^mailscan-[0-9a-f]{32}\.blob$/)]);
  });
});
