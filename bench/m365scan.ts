import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runEngineCli } from '../layers/engine-kit/src/cli.ts';
import { buildEngineOf } from '../layers/build.ts';
import { MICROSOFT_CNAME_LABELS } from '../layers/m365scan/src/checks/dangling.ts';
import { readMx, readSpf, spfIncludesEop } from '../layers/m365scan/src/checks/mail-dns.ts';
import { m365scan } from '../layers/m365scan/src/engine.ts';
import { startWorld } from '../layers/m365scan/test/helpers/world.ts';
import { makeCachingResolver } from '../lib/dns/caching-resolver.ts';
import { makeRawResolver } from '../lib/dns/raw-resolver.ts';
import type { Resolver } from '../lib/dns/resolver.ts';
import { engineReportSchema } from '../lib/report.ts';
import { formatSpread, interleaved, pairedRatios, spread } from './paired.ts';

// npm run bench:m365 [-- --rounds 15]: DESIGN §19's budget, "an m365 scan ≤ 2 s of wall time beyond
// its DNS critical path on loopback". The federated tenant of the tests (fabrikam.test: every
// Microsoft endpoint, ADFS's three pages, the MTA-STS policy and OWA asked; 11 of 11 checks run)
// on NSD and the loopback HTTPS fakes. In turn (A B A B ...), in this process so that Node's
// start-up is in neither: A, the whole scan through the CLI frame (settings, DNS, HTTP, report);
// B, its DNS critical path alone (every DNS question the scan asks, with its dependencies: MX
// then SPF and its includes; the selectors' CNAMEs and keys; the six CNAMEs and their ends;
// _mta-sts; the A/AAAA of mta-sts, sts, mail and autodiscover), with a fresh resolver each time.
// Prints A, B, A − B and A / B per pair (min/median/max), and the built executable's own wall time
// (Node's start-up included) beside them.
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' } } });
const rounds = Number(values.rounds);
const DOMAIN = 'fabrikam.test';

const world = await startWorld('127.0.38.4');
const work = await mkdtemp(join(tmpdir(), 'm365scan-bench-'));
const scopeFile = join(work, 'scope.json');
await writeFile(scopeFile, '{}');
const bin = await buildEngineOf('m365scan', join(work, 'dist', 'bin', 'm365scan'));
const nameserver = { host: '127.0.0.1', port: world.nsd.port };

async function wholeScan(): Promise<number> {
  let stdout = '';
  const started = performance.now();
  const code = await runEngineCli(m365scan, ['scan', DOMAIN, '--scope-json', scopeFile], {
    stdout: (text) => (stdout += text),
    stderr: () => {},
    env: world.env,
    now: () => new Date(),
  });
  const ms = performance.now() - started;
  const report = engineReportSchema().parse(JSON.parse(stdout));
  if (code !== 0 || report.status !== 'ok' || report.checks.some((check) => check.status === 'error'))
    throw new Error(`the scan did not complete: ${JSON.stringify(report.errors)}`);
  return ms;
}

async function addresses(resolver: Resolver, name: string): Promise<void> {
  await Promise.all([resolver.query(name, 'A'), resolver.query(name, 'AAAA')]);
}

async function dnsCriticalPath(): Promise<number> {
  const resolver = makeCachingResolver(makeRawResolver({ servers: [nameserver], timeoutMs: 2000, attempts: 2 }));
  const started = performance.now();
  await Promise.all([
    (async () => {
      await readMx(resolver, DOMAIN);
      const spf = await readSpf(resolver, DOMAIN);
      if (spf.kind === 'found') await spfIncludesEop(resolver, DOMAIN, spf.record);
      await Promise.all([addresses(resolver, `mail.${DOMAIN}`), addresses(resolver, `mta-sts.${DOMAIN}`)]);
    })(),
    ...['selector1', 'selector2'].map(async (selector) => {
      await resolver.query(`${selector}._domainkey.${DOMAIN}`, 'CNAME');
      await resolver.query(`${selector}._domainkey.${DOMAIN}`, 'TXT');
    }),
    ...MICROSOFT_CNAME_LABELS.map(async (label) => {
      await resolver.query(`${label}.${DOMAIN}`, 'CNAME');
      await addresses(resolver, `${label}.${DOMAIN}`);
    }),
    resolver.query(`_mta-sts.${DOMAIN}`, 'TXT'),
    addresses(resolver, `sts.${DOMAIN}`),
  ]);
  return performance.now() - started;
}

function builtScan(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [bin, 'scan', DOMAIN, '--scope-json', scopeFile],
      { env: { PATH: process.env.PATH ?? '', ...world.env } },
      (error) => (error ? reject(new Error(error.message)) : resolve(performance.now() - started)),
    ),
  );
}

try {
  const samples = await interleaved({ scan: wholeScan, dns: dnsCriticalPath, built: builtScan }, rounds, 2);
  const beyond = samples.scan.map((ms, i) => ms - samples.dns[i]);
  console.log(`m365scan bench: ${DOMAIN}, ${rounds} rounds interleaved (scan, DNS critical path, built executable), 2 warm-up rounds`);
  console.log(
    `  requests a scan, counted by the fakes: ${world.fakes.requestsFor(DOMAIN) / (2 * (rounds + 2))} (DESIGN §19: at most 25 a domain)`,
  );
  console.log(`  A  whole scan, in process:       ${formatSpread(samples.scan, ' ms')}`);
  console.log(`  B  DNS critical path:            ${formatSpread(samples.dns, ' ms', 1)}`);
  console.log(`  A − B  beyond the DNS path:      ${formatSpread(beyond, ' ms')}`);
  console.log(`  A / B  paired ratio:             ${formatSpread(pairedRatios(samples.scan, samples.dns), '×', 1)}`);
  console.log(`  built executable, Node start-up included: ${formatSpread(samples.built, ' ms')}`);
  const worst = spread(beyond).max;
  console.log(
    `  budget (DESIGN §19): ≤ 2000 ms beyond the DNS path: ${worst <= 2000 ? 'met' : 'NOT met'} (worst pair ${worst.toFixed(0)} ms)`,
  );
  if (worst > 2000) process.exitCode = 1;
} finally {
  await world.close();
  await rm(work, { recursive: true, force: true });
}
