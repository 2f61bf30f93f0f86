import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMailscan } from '../layers/mailscan/build.ts';
import { startDnsServerProcess } from '../layers/mailscan/test/helpers/dns-server-process.ts';
import { startSmtpFake } from '../layers/mailscan/test/helpers/smtp-server.ts';
import { startCertstreamFake, startVendorFakes, VENDOR_KEYS } from '../layers/mailscan/test/helpers/vendor-fakes.ts';
import { mapBounded } from '../lib/concurrency.ts';

// npx tsx bench/mailscan-checks-diff.ts --baseline PATH [--candidate PATH] [--verbose]: the same mailscan
// scans by two built CLIs (say, main's and this branch's), compared per case. Cases: every fixture
// zone of test/fixtures/mailscan/zones (posture and reputation, the built-in lists served locally),
// the opt-in scans of the discover/leak tests (the fake vendors, SMTP servers and certificate stream
// of layers/mailscan/test/helpers; with and without the vendors' keys, with adversary techniques),
// and the file surfaces (aggregate reports, one message). Prints per case whether the findings,
// surfaces, score, errors and report status are identical, and every check whose status changed
// (with both details); --verbose also the checks whose detail or coverage changed, and each finding
// whose identity (subject, evidence and fingerprint key: src/finding-identity.ts) changed, which is
// compared apart from the rest of the finding; --dump DIR writes both reports of each case. Without
// --candidate the CLI of this worktree is built first. Nothing is timed: a comparison, not a benchmark.
const { values } = parseArgs({
  options: { baseline: { type: 'string' }, candidate: { type: 'string' }, verbose: { type: 'boolean' }, dump: { type: 'string' } },
});
if (!values.baseline) throw new Error('--baseline PATH (a built mailscan CLI) is required');
const work = await mkdtemp(join(tmpdir(), 'mailscan-checks-diff-'));
const candidate = values.candidate ?? (await buildMailscan(join(work, 'bin', 'mailscan'), { snapshot: false }));
const fixtures = fileURLToPath(new URL('../test/fixtures/mailscan/', import.meta.url));
const zoneDir = join(fixtures, 'zones');
const leakZones = join(fixtures, 'discover-leak');

const [dns, vendors, certstream, mailboxes, catchAll] = await Promise.all([
  startDnsServerProcess({
    zoneDir,
    zoneFiles: (await readdir(leakZones)).map((file) => join(leakZones, file)),
    outOfZone: 'NXDOMAIN',
  }),
  startVendorFakes(),
  startCertstreamFake([['unrelated.example'], ['brand-login.test', 'www.brand-login.test'], ['mail.brand.test']]),
  startSmtpFake({ mailboxes: ['jane.roe@disc.test', 'postmaster@disc.test', 'dmarc-reports@disc.test'] }),
  startSmtpFake({ catchAll: true }),
]);

async function config(name: string, smtpPort: number, extra: Record<string, unknown> = {}): Promise<string> {
  const path = join(work, `${name}.json`);
  await writeFile(
    path,
    JSON.stringify({
      dns: { timeout_ms: 2_000, attempts: 2 },
      lookalike: { concurrency: 20, max_candidates: 600 },
      smtp: { port: smtpPort, pause_ms: 0, timeout_ms: 3_000, helo: 'probe.mailscan.test' },
      certstream: { seconds: 0 },
      ...extra,
    }),
  );
  return path;
}

interface Case {
  label: string;
  args: string[];
  env: Record<string, string>;
}
const zones = (await readdir(zoneDir)).filter((file) => file.endsWith('.test.zone')).map((file) => file.slice(0, -'.zone'.length));
const rua = (file: string) => ['--rua', join(fixtures, 'rua', file)];
const cases: Case[] = [
  ...zones.map((zone) => ({ label: zone, args: [zone], env: {} })),
  {
    label: 'good.test --rua --eml',
    args: ['good.test', ...rua('google.xml'), '--eml', join(fixtures, 'header', 'received-anomalies.eml')],
    env: {},
  },
  {
    label: 'good.test --rua ×4 (one of another domain)',
    args: ['good.test', ...rua('google.xml'), ...rua('yahoo.xml.gz'), ...rua('microsoft.zip'), ...rua('other-domain.xml')],
    env: {},
  },
  {
    label: 'disc.test --discover, keyed',
    args: ['disc.test', '--discover', '--config', await config('disc', mailboxes.port)],
    env: VENDOR_KEYS,
  },
  { label: 'disc.test --discover', args: ['disc.test', '--discover', '--config', await config('disc2', mailboxes.port)], env: {} },
  {
    label: 'catchall.test T1589.002',
    args: ['catchall.test', '--technique', 'T1589.002', '--config', await config('catchall', catchAll.port)],
    env: {},
  },
  {
    label: 'brand.test --leak T1598, keyed',
    args: ['brand.test', '--leak', '--technique', 'T1598', '--config', await config('leak', mailboxes.port)],
    env: VENDOR_KEYS,
  },
  { label: 'brand.test --leak', args: ['brand.test', '--leak', '--config', await config('brand-keyless', mailboxes.port)], env: {} },
  {
    label: 'quiet.test --leak T1598, keyed',
    args: ['quiet.test', '--leak', '--technique', 'T1598', '--config', await config('quiet', mailboxes.port)],
    env: VENDOR_KEYS,
  },
  {
    label: 'rep-listed.test T1598',
    args: [
      'rep-listed.test',
      '--technique',
      'T1598',
      '--config',
      await config('listed', mailboxes.port, { lookalike: { max_candidates: 50, concurrency: 20 } }),
    ],
    env: {},
  },
];

type Finding = { rule_id: string; subject?: string; fingerprint_key?: string; evidence_key?: string } & Record<string, unknown>;
type Report = {
  status: string;
  domain_exists: unknown;
  summary?: unknown;
  surfaces: Record<string, unknown>;
  findings: Finding[];
  errors: unknown[];
  checks: { id: string; status: string; detail: string; coverage?: unknown }[];
};

function run(bin: string, item: Case): Promise<Report> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [bin, 'scan', ...item.args, '--nameserver', dns.address, '--timeout', '40', '--format', 'json'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          MAILSCAN_ALLOW_PRIVATE: '1',
          MAILSCAN_ALLOW_LOOPBACK: '1',
          ...vendors.urls,
          MAILSCAN_CERTSTREAM_URL: certstream.url,
          ...item.env,
        },
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && stdout === '') reject(new Error(`${item.label}: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as Report);
      },
    );
  });
}

/**
 * What differs between two scans of the same case by chance: the catch-all probe's random local
 * part, and the fingerprints that hash it (in a report that has one).
 */
function stable(value: unknown): string {
  const text = (JSON.stringify(value) ?? 'undefined').replace(/\b[0-9a-f]{18}@/g, 'RANDOM@');
  return text.includes('RANDOM@') ? text.replace(/\b[0-9a-f]{64}\b/g, 'HASH') : text;
}

/** What names a finding's instance (the tracker's subject, the fingerprint's key), compared apart from what it says. */
const IDENTITY_FIELDS = ['subject', 'evidence_key', 'fingerprint_key'];
const withoutIdentity = (findings: Finding[]) =>
  findings.map((item) => Object.fromEntries(Object.entries(item).filter(([key]) => !IDENTITY_FIELDS.includes(key))));
const identityOf = (item: Finding) => `${item.subject ?? '(none)'} [${item.fingerprint_key ?? item.evidence_key ?? '(whole evidence)'}]`;

interface Outcome {
  label: string;
  /** Findings (in order) whose subject or key changed: rule, before ⇒ after. */
  identityChanges: string[];
  same: string[];
  different: string[];
  statusChanges: string[];
  detailChanges: string[];
  checks: number;
  /** Checks of the candidate that no code recorded (a rule of a surface that ran, decided by no check). */
  unreported: string[];
}

const outcomes = await mapBounded(cases, 2, async (item): Promise<Outcome> => {
  const [before, after] = await Promise.all([run(values.baseline!, item), run(candidate, item)]);
  if (values.dump) {
    const base = join(values.dump, item.label.replace(/[^a-z0-9.-]+/gi, '_'));
    await writeFile(`${base}.before.json`, JSON.stringify(before, null, 2));
    await writeFile(`${base}.after.json`, JSON.stringify(after, null, 2));
  }
  const parts: Record<string, [unknown, unknown]> = {
    findings: [withoutIdentity(before.findings), withoutIdentity(after.findings)],
    surfaces: [before.surfaces, after.surfaces],
    score: [before.summary ?? null, after.summary ?? null],
    domain_exists: [before.domain_exists, after.domain_exists],
    errors: [before.errors, after.errors],
    'report status': [before.status, after.status],
  };
  const identityChanges = before.findings.flatMap((item, index) => {
    const now = after.findings[index];
    if (now === undefined || now.rule_id !== item.rule_id) return [`${item.rule_id}: ${identityOf(item)} ⇒ (another finding here)`];
    const [was, is] = [identityOf(item), identityOf(now)];
    return stable(was) === stable(is) ? [] : [`${item.rule_id}: ${was} ⇒ ${is}`];
  });
  const same = Object.keys(parts).filter((key) => stable(parts[key][0]) === stable(parts[key][1]));
  const different = Object.keys(parts).filter((key) => !same.includes(key));
  const afterById = new Map(after.checks.map((check) => [check.id, check]));
  const statusChanges: string[] = [];
  const detailChanges: string[] = [];
  for (const old of before.checks) {
    const now = afterById.get(old.id);
    if (!now) statusChanges.push(`${old.id}: ${old.status} → (missing)`);
    else if (now.status !== old.status)
      statusChanges.push(`${old.id}: ${old.status} → ${now.status}\n      before: ${old.detail}\n      after:  ${now.detail}`);
    else if (now.detail !== old.detail || stable(now.coverage) !== stable(old.coverage))
      detailChanges.push(
        `${old.id} (${now.status}): ${old.detail} ⇒ ${now.detail}${stable(now.coverage) === stable(old.coverage) ? '' : ` | coverage ${stable(old.coverage)} ⇒ ${stable(now.coverage)}`}`,
      );
  }
  const unreported = after.checks.filter((check) => /no check of it reported/.test(check.detail)).map((check) => check.id);
  return { label: item.label, identityChanges, same, different, statusChanges, detailChanges, checks: before.checks.length, unreported };
});

let changed = 0;
let unreported = 0;
let identities = 0;
for (const outcome of outcomes) {
  const line =
    outcome.different.length === 0 ? 'findings, surfaces, score, errors, status identical' : `DIFFERENT: ${outcome.different.join(', ')}`;
  process.stdout.write(
    `${outcome.label}: ${line}; ${outcome.statusChanges.length} of ${outcome.checks} check statuses changed, ${outcome.detailChanges.length} details/coverage; ${outcome.identityChanges.length} finding identities changed\n`,
  );
  if (values.verbose) for (const change of outcome.identityChanges) process.stdout.write(`    ≡ ${change}\n`);
  for (const change of outcome.statusChanges) process.stdout.write(`    ${change}\n`);
  if (values.verbose) for (const change of outcome.detailChanges) process.stdout.write(`    · ${change}\n`);
  if (outcome.unreported.length > 0) process.stdout.write(`    NOT RECORDED by any check: ${outcome.unreported.join(', ')}\n`);
  changed += outcome.statusChanges.length + (outcome.different.length > 0 ? 1 : 0);
  unreported += outcome.unreported.length;
  identities += outcome.identityChanges.length;
}
process.stdout.write(
  `${cases.length} cases; ${changed} differences beyond details, coverage and finding identities; ${identities} finding identities changed; ${unreported} checks of the candidate recorded by no check\n`,
);
await Promise.all([dns.close(), vendors.close(), certstream.close(), mailboxes.close(), catchAll.close()]);
await rm(work, { recursive: true, force: true });
