import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBlobFor } from '../../src/snapshot-blob.ts';
import { buildCli, runCli, type CliRun } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';
import { startVendorFakes, VENDOR_KEYS, type VendorFakes } from '../helpers/vendor-fakes.ts';
import { BASE_MESSAGE } from '../helpers/signed-messages.ts';
import type * as OnDemand from '../../src/on-demand.ts';
import { routes, sendBody, startLoopbackServer } from '../reputation/loopback-server.ts';
import { makeRoot, makeTlsServerCert, svgLogo } from '../reputation/x509-fixtures.ts';

/** A report without its two timestamps, the only fields two runs of one scan may differ in. */
function untimed(run: CliRun): unknown {
  const { started_at: _started, finished_at: _finished, ...rest } = JSON.parse(run.stdout) as Record<string, unknown>;
  return rest;
}

/** The diagnostics' events and fields without their times. */
function events(run: CliRun): unknown[] {
  return run.diagnostics.map(({ time: _time, ...rest }) => rest);
}

describe('mailscan started from its start-up snapshot (docs/mailscan-startup.md)', () => {
  let dns: TestDnsServer;
  let bin: string;
  let snapshot: string[];

  beforeAll(async () => {
    [dns, bin] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
    snapshot = ['--snapshot-blob', snapshotBlobFor(bin)];
  });
  afterAll(async () => {
    await dns.close();
  });

  it('is written by the build beside the bundle', () => {
    expect(existsSync(snapshotBlobFor(bin))).toBe(true);
  });

  it.each(['good.test', 'bare.test', 'twospf.test', 'rep-listed.test'])(
    'prints the same report for a real scan of %s as the plain bundle',
    async (domain) => {
      const args = ['scan', domain, '--nameserver', dns.address];

      const [plain, fromSnapshot] = await Promise.all([runCli(args), runCli(args, {}, snapshot)]);

      expect(plain.code, plain.stderr).toBe(0);
      expect(fromSnapshot.code, fromSnapshot.stderr).toBe(0);
      expect(untimed(fromSnapshot)).toEqual(untimed(plain));
      expect(events(fromSnapshot)).toEqual(events(plain));
    },
  );

  it('gives the same usage error and text report as the plain bundle', async () => {
    const [plainUsage, snapshotUsage] = await Promise.all([runCli(['scan']), runCli(['scan'], {}, snapshot)]);
    expect(plainUsage.code).toBe(2);
    expect(events(snapshotUsage)).toEqual(events(plainUsage));
    expect(snapshotUsage.code).toBe(2);

    const args = ['scan', 'bare.test', '--nameserver', dns.address, '--format', 'text', '--no-reputation'];
    const [plainText, snapshotText] = await Promise.all([runCli(args), runCli(args, {}, snapshot)]);
    expect(plainText.code, plainText.stderr).toBe(0);
    expect(snapshotText.stdout.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T')).toEqual(
      plainText.stdout.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T'),
    );
  });

  it('fetches over HTTP as the plain bundle does (the leak surface against fake vendors): the snapshot has no dynamic import()', async () => {
    const leakDns = await startDnsServer({
      zoneDir: fileURLToPath(new URL('../../../../test/fixtures/mailscan/discover-leak/', import.meta.url)),
      outOfZone: 'NXDOMAIN',
    });
    let vendors: VendorFakes | undefined;
    try {
      vendors = await startVendorFakes();
      const args = ['scan', 'brand.test', '--nameserver', leakDns.address, '--leak', '--no-reputation'];
      const env = { ...vendors.urls, ...VENDOR_KEYS };

      const plain = await runCli(args, env);
      const fromSnapshot = await runCli(args, env, snapshot);

      expect(plain.code, plain.stderr).toBe(0);
      expect(fromSnapshot.code, fromSnapshot.stderr).toBe(0);
      const report = untimed(fromSnapshot) as { errors: unknown[]; surfaces: { leak?: unknown } };
      expect(report.surfaces.leak).toBeDefined();
      expect(report.errors).toEqual((untimed(plain) as { errors: unknown[] }).errors);
      expect(report).toEqual(untimed(plain));
    } finally {
      await Promise.all([leakDns.close(), vendors?.close()]);
    }
  });

  it('runs the rua and header surfaces, which are not in its script, from the bundle beside it, with the same report', async () => {
    const work = mkdtempSync(join(tmpdir(), 'mailscan-snapshot-opt-in-'));
    try {
      const eml = join(work, 'message.eml');
      writeFileSync(eml, BASE_MESSAGE);
      const rua = fileURLToPath(new URL('../../../../test/fixtures/mailscan/rua/google.xml.gz', import.meta.url));
      const args = ['scan', 'good.test', '--nameserver', dns.address, '--no-reputation', '--rua', rua, '--eml', eml];

      const [plain, fromSnapshot] = await Promise.all([runCli(args), runCli(args, {}, snapshot)]);

      expect(plain.code, plain.stderr).toBe(0);
      expect(fromSnapshot.code, fromSnapshot.stderr).toBe(0);
      const report = untimed(fromSnapshot) as { surfaces: Record<string, { status: string }> };
      expect(report.surfaces.rua.status).toBe('ok');
      expect(report.surfaces.header.status).toBe('ok');
      expect(report).toEqual(untimed(plain));
      // The two surfaces run at once: their diagnostics may come in either order.
      const sorted = (run: CliRun) =>
        events(run)
          .map((event) => JSON.stringify(event))
          .sort();
      expect(sorted(fromSnapshot)).toEqual(sorted(plain));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("has the bundle's on-demand.js, whose loaders give every module the snapshot leaves out", async () => {
    // What snapshot-on-demand.ts requires from a scan started from the snapshot (an ES module, through require).
    const onDemand = createRequire(join(dirname(dirname(bin)), 'lib', 'mailscan', 'mailscan.js'))('./on-demand.js') as typeof OnDemand;

    const [leak, discover, rua, header, vmc] = await Promise.all([
      onDemand.loadLeak(),
      onDemand.loadDiscover(),
      onDemand.loadRua(),
      onDemand.loadHeader(),
      onDemand.loadVmc(),
    ]);

    expect([leak.runLeak, discover.runDiscover, rua.runRua, header.runHeader, vmc.validateVmc].map((fn) => typeof fn)).toEqual(
      Array(5).fill('function'),
    );
  });

  it('reads the bundled VMC roots beside the executable it is started for, as the bundle does', async () => {
    // A copy of the layer whose roots folder holds a file with no certificate, and a domain whose
    // BIMI record names a VMC on a loopback HTTPS server: the roots are read only to validate a
    // VMC, so the BIMI check is an error naming that file, which only a CLI that looked in the
    // copy's folder can give.
    const tlsRoot = await makeRoot('CN=Test TLS Root');
    const web = await startLoopbackServer(
      routes({ '/logo.svg': sendBody(svgLogo, 'image/svg+xml'), '/vmc.pem': sendBody('any VMC: the roots are read first\n') }),
      await makeTlsServerCert(tlsRoot, ['logo.rep-bimi.test']),
    );
    const layer = mkdtempSync(join(tmpdir(), 'mailscan-snapshot-layer-'));
    try {
      const origin = `https://logo.rep-bimi.test:${web.port}`;
      dns.addZone(`default._bimi IN TXT "v=BIMI1; l=${origin}/logo.svg; a=${origin}/vmc.pem"`, 'rep-bimi.test');
      cpSync(dirname(dirname(bin)), layer, { recursive: true });
      const broken = join(layer, 'assets', 'vmc-roots', 'broken.pem');
      writeFileSync(broken, 'not a certificate\n');
      writeFileSync(join(layer, 'tls-root.pem'), tlsRoot.pem);
      const copy = join(layer, 'bin', 'mailscan');
      const args = [copy, 'scan', 'rep-bimi.test', '--nameserver', dns.address];
      const env = { NODE_EXTRA_CA_CERTS: join(layer, 'tls-root.pem') };

      const [plain, fromSnapshot] = await Promise.all([
        runRaw(args, env),
        runRaw(['--snapshot-blob', snapshotBlobFor(copy), ...args], env),
      ]);

      for (const run of [plain, fromSnapshot]) {
        expect(run.code, run.stderr).toBe(0);
        const report = JSON.parse(run.stdout) as { errors: { check: string; message: string }[] };
        expect(report.errors.filter((error) => error.check === 'bimi').map((error) => error.message)).toEqual([
          `VMC ${origin}/vmc.pem: the VMC trust roots could not be read: ${broken} holds no PEM certificate`,
        ]);
      }
    } finally {
      rmSync(layer, { recursive: true, force: true });
      await web.close();
    }
  });
});

/** Runs `node ARGS` (the executable named in ARGS) with the clean environment runCli uses, and `env`. */
function runRaw(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { env: { PATH: process.env.PATH ?? '', MAILSCAN_ALLOW_LOOPBACK: '1', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}
