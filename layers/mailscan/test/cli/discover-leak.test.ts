import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineReportSchema } from '../../../../lib/report.ts';
import { resultOfEngineReport } from '../../../../shared/adapters/runners/engine-runner.ts';
import { fingerprintOf } from '../../../../shared/domain/finding.ts';
import { trackIssues, type TargetRun } from '../../../../shared/domain/issue-tracking.ts';
import type { IssueRecord } from '../../../../shared/domain/issue.ts';
import { covers } from '../../../../shared/domain/coverage.ts';
import { reportSchema, type Report } from '../../src/report.ts';
import { runCli, type CliRun } from '../helpers/cli.ts';
import { startDnsServerProcess, type DnsServerProcess } from '../helpers/dns-server-process.ts';
import { zoneDir } from '../helpers/fixtures.ts';
import { startSmtpFake, type SmtpFake } from '../helpers/smtp-server.ts';
import {
  FEED_SECRETS,
  startCertstreamFake,
  startVendorFakes,
  VENDOR_KEYS,
  type CertstreamFake,
  type VendorFakes,
} from '../helpers/vendor-fakes.ts';

const leakZones = fileURLToPath(new URL('../../../../test/fixtures/mailscan/discover-leak/', import.meta.url));
const KEYED_VENDORS = ['github', 'emailrep', 'dehashed', 'intelx', 'snusbase'];

let dns: DnsServerProcess;
let vendors: VendorFakes;
let certstream: CertstreamFake;
let mailboxes: SmtpFake;
let catchAll: SmtpFake;
const configDir = mkdtempSync(join(tmpdir(), 'mailscan-leak-'));

function config(name: string, smtpPort: number, extra: Record<string, unknown> = {}): string {
  const path = join(configDir, `${name}.json`);
  writeFileSync(
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

interface Scanned {
  run: CliRun;
  report: Report;
  requests: VendorFakes['requests'];
}

/** The scans run concurrently, so requests are told apart by the domain they carry. */
const runs = new Map<string, Promise<Scanned>>();
function scanOnce(label: string, domain: string, flags: string[], env: Record<string, string>): Promise<Scanned> {
  let pending = runs.get(label);
  if (!pending) {
    pending = runCli(['scan', domain, '--nameserver', dns.address, '--timeout', '40', ...flags], {
      ...vendors.urls,
      MAILSCAN_CERTSTREAM_URL: certstream.url,
      ...env,
    }).then((run) => {
      if (run.code !== 0) throw new Error(`mailscan exited ${run.code}: ${run.stderr}`);
      return { run, report: reportSchema.parse(JSON.parse(run.stdout)), requests: vendors.requests };
    });
    runs.set(label, pending);
  }
  return pending;
}

const rules = (report: Report): string[] => report.findings.map((item) => item.rule_id);

beforeAll(async () => {
  [dns, vendors, certstream, mailboxes, catchAll] = await Promise.all([
    // In its own process: thousands of lookalike queries must not compete with the test's event loop.
    startDnsServerProcess({
      zoneDir,
      zoneFiles: ['disc.test', 'catchall.test', 'brand.test', 'brnad.test', 'bran.test', 'brend.test', 'quiet.test'].map((zone) =>
        join(leakZones, `${zone}.zone`),
      ),
      outOfZone: 'NXDOMAIN',
    }),
    startVendorFakes(),
    startCertstreamFake([['unrelated.example'], ['brand-login.test', 'www.brand-login.test'], ['mail.brand.test']]),
    startSmtpFake({ mailboxes: ['jane.roe@disc.test', 'postmaster@disc.test', 'dmarc-reports@disc.test'] }),
    startSmtpFake({ catchAll: true }),
  ]);
  // Start every scan at once: each is a separate process, and together they take the time of the slowest.
  const leakConfig = config('leak', mailboxes.port, { certstream: { seconds: 20, max_messages: 4 }, lookalike: { concurrency: 20 } });
  void scanOnce('disc keyed', 'disc.test', ['--discover', '--config', config('disc', mailboxes.port)], VENDOR_KEYS);
  void scanOnce('disc keyless', 'disc.test', ['--discover', '--config', config('disc2', mailboxes.port)], {});
  void scanOnce(
    'catchall',
    'catchall.test',
    ['--technique', 'T1589.002', '--config', config('catchall', catchAll.port), '--format', 'json'],
    {},
  );
  void scanOnce('catchall again', 'catchall.test', ['--discover', '--config', config('catchall-again', catchAll.port)], {});
  void scanOnce('brand keyed', 'brand.test', ['--leak', '--technique', 'T1598', '--config', leakConfig], VENDOR_KEYS);
  void scanOnce('brand keyless', 'brand.test', ['--leak', '--config', config('brand-keyless', mailboxes.port)], {});
  void scanOnce('quiet keyed', 'quiet.test', ['--leak', '--technique', 'T1598', '--config', config('quiet', mailboxes.port)], VENDOR_KEYS);
  void scanOnce(
    'listed',
    'rep-listed.test',
    ['--technique', 'T1598', '--config', config('listed', mailboxes.port, { lookalike: { max_candidates: 50, concurrency: 20 } })],
    {},
  );
  await Promise.all(runs.values());
}, 120_000);

afterAll(async () => {
  await Promise.all([dns?.close(), vendors?.close(), certstream?.close(), mailboxes?.close(), catchAll?.close()]);
});

describe('mailscan --discover', () => {
  it('builds candidates from CT, the SOA RNAME, DMARC, roles and learned patterns, each with its sources', async () => {
    const { report } = await scanOnce('disc keyed', 'disc.test', [], {});
    const discover = report.surfaces.discover as unknown as {
      candidates: { address: string; sources: string[]; pattern?: string; rcpt: string }[];
      patterns: string[];
      ct: { names: string[] };
    };

    const byAddress = new Map(discover.candidates.map((candidate) => [candidate.address, candidate]));
    expect(byAddress.get('jane.roe@disc.test')).toMatchObject({ sources: ['ct'], rcpt: 'accepted' });
    expect(byAddress.get('dns-admin@disc.test')).toMatchObject({ sources: ['soa'], rcpt: 'rejected' });
    expect(byAddress.get('dmarc-reports@disc.test')).toMatchObject({ sources: ['dmarc'], rcpt: 'accepted' });
    expect(discover.patterns).toEqual(['first.last']);
    expect(byAddress.get('bob.smith@disc.test')).toMatchObject({ sources: ['pattern'], pattern: 'first.last' });
    expect(byAddress.get('postmaster@disc.test')).toMatchObject({ sources: ['role'], rcpt: 'accepted' });
    expect(discover.ct.names).toEqual(['vpn.disc.test', 'www.disc.test']);
  });

  it('probes the MX with a random address first, at most max_probes RCPTs, and never sends DATA', async () => {
    const { report } = await scanOnce('disc keyed', 'disc.test', [], {});
    const smtp = (report.surfaces.discover as unknown as { smtp: { catch_all: boolean; results: unknown[]; not_probed: number } }).smtp;

    expect(smtp.catch_all).toBe(false);
    expect(smtp.results).toHaveLength(19);
    expect(smtp.not_probed).toBeGreaterThan(0);
    expect(mailboxes.dataAttempts).toBe(0);
    expect(rules(report)).not.toContain('mailscan.discover.catch_all');
  });

  it('flags addresses by their reputation: high when blacklisted, medium when only leaked', async () => {
    const { report } = await scanOnce('disc keyed', 'disc.test', [], {});
    const flagged = report.findings.filter((item) => item.rule_id === 'mailscan.discover.flagged_address');

    expect(flagged.map((item) => [item.evidence.address, item.severity]).sort()).toEqual([
      ['dmarc-reports@disc.test', 'medium'],
      ['jane.roe@disc.test', 'high'],
    ]);
    expect(flagged.find((item) => item.evidence.address === 'jane.roe@disc.test')?.evidence).toMatchObject({
      flags: ['blacklisted', 'credentials_leaked', 'data_breach'],
      rcpt: 'accepted',
      sources: ['ct'],
    });
  });

  it('reports catch-all, marks accepted addresses unverifiable, and the technique adds the adversary finding', async () => {
    const { report } = await scanOnce('catchall', 'catchall.test', [], {});
    const catchAllFinding = report.findings.find((item) => item.rule_id === 'mailscan.discover.catch_all');
    const adversary = report.findings.find((item) => item.rule_id === 'adversary.email.catch_all_enables_enumeration');

    expect(catchAllFinding).toMatchObject({ severity: 'low', evidence: { mx: 'mx.catchall.test', reply_code: 250 } });
    expect(
      (report.surfaces.discover as unknown as { candidates: { rcpt: string }[] }).candidates
        .filter((candidate) => candidate.rcpt !== 'not_probed')
        .every((candidate) => candidate.rcpt === 'unverifiable'),
    ).toBe(true);
    expect(adversary).toMatchObject({
      severity: 'medium',
      evidence: {
        technique: 'T1589.002',
        base_rule_id: 'mailscan.discover.catch_all',
        base_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(report.techniques).toEqual(['T1589.002']);
    expect(report.surfaces.leak.status).toBe('skipped');
  });

  it('keys the catch-all finding by its MX, not the random address it probed, so a second scan sees the same issue', async () => {
    const [first, second] = await Promise.all([
      scanOnce('catchall', 'catchall.test', [], {}),
      scanOnce('catchall again', 'catchall.test', [], {}), // started in beforeAll, with --discover
    ]);
    const catchAll = (scan: Scanned) => scan.report.findings.find((item) => item.rule_id === 'mailscan.discover.catch_all')!;
    // Before: the key was the whole evidence, random probe address included, so every scan opened a new issue.
    expect(catchAll(first).evidence.probe_address).not.toBe(catchAll(second).evidence.probe_address);
    expect(catchAll(first).fingerprint_key).toBe('mx=mx.catchall.test');
    expect(catchAll(second).fingerprint_key).toBe(catchAll(first).fingerprint_key);
  });

  it('adds no adversary finding without its base finding', async () => {
    const { report } = await scanOnce('disc keyed', 'disc.test', [], {});
    expect(rules(report).filter((rule) => rule.startsWith('adversary.'))).toEqual([]);
  });
});

describe('mailscan --leak', () => {
  it('reports the domain site breach and the breached addresses, masked and counted', async () => {
    const { report } = await scanOnce('brand keyed', 'brand.test', [], {});
    const breaches = report.findings.filter((item) => item.rule_id === 'mailscan.leak.breachdb_breach');

    expect(breaches.map((item) => item.evidence.breach)).toEqual(['BrandForum', 'Collection1']);
    expect(breaches[0]).toMatchObject({
      severity: 'high',
      evidence: {
        kind: 'domain_site',
        breach_date: '2024-03-01',
        data_classes: ['Email addresses', 'Passwords'],
        addresses: 1,
        masked_samples: ['b***@brand.test'],
      },
    });
    expect(breaches[1].evidence).toMatchObject({
      kind: 'domain_addresses',
      addresses: 2,
      masked_samples: ['a***@brand.test', 'b***@brand.test'],
      breach_date: '2019-01-07',
    });
  });

  it('reports code-search hits near credential words', async () => {
    const { report, requests } = await scanOnce('brand keyed', 'brand.test', [], {});
    const hits = report.findings.filter((item) => item.rule_id === 'mailscan.leak.code_search_hit');

    expect(hits).toEqual([
      expect.objectContaining({
        severity: 'medium',
        evidence: {
          repository: 'acme/app',
          path: 'app/settings.py',
          url: 'https://code.example/acme/app/blob/main/app/settings.py',
          words: ['password'],
          word: 'password',
        },
      }),
    ]);
    const searches = requests.filter((request) => request.vendor === 'github' && request.path.includes('brand.test'));
    expect(searches.length).toBeGreaterThanOrEqual(10);
    expect(searches.every((request) => request.headers.authorization === `Bearer ${VENDOR_KEYS.MAILSCAN_CODESEARCH_KEY}`)).toBe(true);
  });

  it('finds registered lookalikes with certificates (CT and the certificate stream), and not the ones without', async () => {
    const { report } = await scanOnce('brand keyed', 'brand.test', [], {});
    const lookalikes = report.findings.filter((item) => item.rule_id === 'mailscan.leak.lookalike');
    const data = report.surfaces.leak.lookalikes as {
      registered: number;
      registered_domains: { domain: string }[];
      candidates: number;
      unknown: number;
    };

    expect(lookalikes.map((item) => item.evidence.lookalike)).toEqual(['brand-login.test', 'brnad.test']);
    expect(lookalikes[1].evidence).toMatchObject({
      family: 'transposition',
      registered: true,
      addresses: ['203.0.113.66'],
      mx: ['mail.brnad.test'],
      certificates: [{ id: 9001, not_before: '2026-10-01T00:00:00', source: 'ct' }],
    });
    expect(lookalikes[0].evidence).toMatchObject({
      family: 'dictionary',
      registered: false,
      certificates: [{ id: 701, source: 'certstream' }],
    });
    expect(data.registered_domains.map((item) => item.domain).sort()).toEqual(['bran.test', 'brend.test', 'brnad.test']);
    expect(data.unknown).toBe(0);
    expect(data.candidates).toBeGreaterThan(500);
    expect(
      (report.surfaces.leak.certstream as { matches: { kind: string; name: string }[] }).matches.map((match) => [match.kind, match.name]),
    ).toEqual([
      ['lookalike', 'brand-login.test'],
      ['lookalike', 'www.brand-login.test'],
      ['domain', 'mail.brand.test'],
    ]);
  });

  it('summarises commercial feed records per source without any password or hash', async () => {
    const { report } = await scanOnce('brand keyed', 'brand.test', [], {});
    const feeds = report.findings.filter((item) => item.rule_id === 'mailscan.leak.commercial_feed');

    expect(feeds.map((item) => [item.evidence.feed, item.evidence.source, item.severity, item.evidence.exposed_fields])).toEqual([
      ['dehashed', 'LinkedIn2016', 'high', ['email', 'hashed_password', 'password', 'username']],
      ['dehashed', 'MarketingList', 'medium', ['email']],
      ['intelx', 'pastes', 'medium', ['name']],
      ['snusbase', 'collection_2019', 'high', ['email', 'hash', 'password', 'username']],
    ]);
    expect(feeds[0].evidence.masked_samples).toEqual(['a***@brand.test']);
  });

  it('adds lookalike phishing infrastructure for each lookalike with a certificate or an MX, with its base fingerprint', async () => {
    const { report } = await scanOnce('brand keyed', 'brand.test', [], {});
    const adversary = report.findings.filter((item) => item.rule_id === 'adversary.email.lookalike_phishing_infrastructure');

    expect(adversary.map((item) => [item.evidence.lookalike, item.evidence.base_rule_id])).toEqual([
      ['brand-login.test', 'mailscan.leak.lookalike'],
      ['brnad.test', 'mailscan.leak.lookalike'],
      ['bran.test', null],
    ]);
    expect(adversary.every((item) => item.severity === 'high' && item.evidence.technique === 'T1598')).toBe(true);
    expect(adversary[0].evidence.base_fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('adds burned reputation from a block-list listing', async () => {
    const { report } = await scanOnce('listed', 'rep-listed.test', [], {});
    const burned = report.findings.filter((item) => item.rule_id === 'adversary.email.dnsbl_burned_reputation');

    expect(burned.length).toBeGreaterThan(0);
    expect(burned.length).toBe(report.findings.filter((item) => item.rule_id === 'mailscan.dnsbl.listed').length);
    expect(burned[0].evidence).toMatchObject({ technique: 'T1598', base_rule_id: 'mailscan.dnsbl.listed' });
  });

  it('stays silent where there is nothing to find', async () => {
    const { report } = await scanOnce('quiet keyed', 'quiet.test', [], {});
    expect(rules(report).filter((rule) => rule.startsWith('mailscan.leak.') || rule.startsWith('adversary.'))).toEqual([]);
    expect(report.surfaces.leak.status).toBe('ok');
    expect(report.errors).toEqual([]);
  });
});

describe('operator keys', () => {
  it('never contacts a key-gated service without its key, and asks the breach database only the keyless question', async () => {
    const [{ run: leakRun }, { run: discoverRun }] = await Promise.all([
      scanOnce('brand keyless', 'brand.test', [], {}),
      scanOnce('disc keyless', 'disc.test', [], {}),
    ]);
    const keylessReports = [reportSchema.parse(JSON.parse(leakRun.stdout)), reportSchema.parse(JSON.parse(discoverRun.stdout))];
    // Keyed scans of other domains ran concurrently: a keyless scan's requests are the ones that name its domain and carry no key.
    const keyless = vendors.requests.filter(
      (request) => !Object.values(VENDOR_KEYS).some((key) => JSON.stringify(request.headers).includes(key)),
    );

    expect(keyless.filter((request) => KEYED_VENDORS.includes(request.vendor))).toEqual([]);
    expect(keyless.filter((request) => request.vendor === 'hibp').every((request) => request.path.startsWith('/breaches?domain='))).toBe(
      true,
    );
    expect(keylessReports[0].surfaces.leak.feeds).toMatchObject({
      dehashed: { status: 'skipped' },
      intelx: { status: 'skipped' },
      snusbase: { status: 'skipped' },
    });
    expect(keylessReports[0].surfaces.leak.codesearch).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('MAILSCAN_CODESEARCH_KEY'),
    });
    expect(keylessReports[1].surfaces.discover.emailrep).toMatchObject({ status: 'skipped' });
    expect(keylessReports[0].findings.map((item) => item.rule_id)).toContain('mailscan.leak.breachdb_breach');
  });

  it('sends each key only in its vendor header', async () => {
    await scanOnce('brand keyed', 'brand.test', [], {});
    const headerOf: Record<string, [string, string]> = {
      dehashed: ['dehashed-api-key', VENDOR_KEYS.MAILSCAN_DEHASHED_KEY],
      intelx: ['x-key', VENDOR_KEYS.MAILSCAN_INTELX_KEY],
      snusbase: ['auth', VENDOR_KEYS.MAILSCAN_SNUSBASE_KEY],
    };
    for (const [vendor, [header, key]] of Object.entries(headerOf)) {
      const sent = vendors.requests.filter((request) => request.vendor === vendor && JSON.stringify(request.headers).includes(key));
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.every((request) => request.headers[header] === key && !request.path.includes(key) && !request.body.includes(key))).toBe(
        true,
      );
    }
  });

  it('never prints a password, a hash or a key from a feed on stdout or stderr', async () => {
    const all = await Promise.all([...runs.values()]);
    for (const { run } of all) {
      for (const secret of [...FEED_SECRETS, ...Object.values(VENDOR_KEYS)]) {
        expect(run.stdout).not.toContain(secret);
        expect(run.stderr).not.toContain(secret);
      }
    }
  });
});

describe('discover, leak and adversary checks, recorded as they ran', () => {
  const checkOf = (report: Report, id: string) => report.checks.find((check) => check.id === id);

  it('decides every rule of every scan by the check that ran it, never by the surface having run', async () => {
    for (const [label, pending] of runs) {
      const { report } = await pending;
      const undecided = report.checks.filter((check) => /no check of it reported|surface ran$|applied$/.test(check.detail));
      expect(undecided, label).toEqual([]);
    }
  });

  it('says what each check read, and skips a keyed one without its key in words', async () => {
    const [disc, keyless, quiet] = await Promise.all([
      scanOnce('disc keyed', 'disc.test', [], {}),
      scanOnce('brand keyless', 'brand.test', [], {}),
      scanOnce('quiet keyed', 'quiet.test', [], {}),
    ]);

    expect(checkOf(disc.report, 'mailscan.discover.catch_all')).toMatchObject({
      status: 'pass',
      detail: 'MX mx.disc.test (127.0.0.1) rejected a random address at disc.test (550 No such user here); 19 candidates asked after it',
      coverage: { kind: 'mail', surfaces: ['discover'], selectors: [], lists: [] },
    });
    expect(checkOf(keyless.report, 'mailscan.leak.code_search_hit')).toMatchObject({
      status: 'skipped',
      detail: 'no codesearch key in this deployment (MAILSCAN_CODESEARCH_KEY)',
    });
    expect(checkOf(keyless.report, 'mailscan.leak.commercial_feed')?.status).toBe('skipped');
    expect(checkOf(quiet.report, 'mailscan.leak.lookalike')).toMatchObject({
      status: 'pass',
      detail: expect.stringMatching(
        /^600 lookalike permutations of [\d,]+ generated resolved \(600 queries\): 0 registered; CT asked about 0/,
      ),
    });
    expect(checkOf(quiet.report, 'mailscan.leak.commercial_feed')).toMatchObject({
      status: 'pass',
      detail: 'dehashed: 0 records read from 0 sources; intelx: 0 records read from 0 sources; snusbase: 0 records read from 0 sources',
      coverage: { lists: ['dehashed', 'intelx', 'snusbase'] },
    });
  });

  it('runs each adversary technique on the findings it reads, and skips a rule no requested technique derives', async () => {
    const [quiet, catchAllScan] = await Promise.all([
      scanOnce('quiet keyed', 'quiet.test', [], {}),
      scanOnce('catchall', 'catchall.test', [], {}),
    ]);

    expect(checkOf(quiet.report, 'adversary.email.lookalike_phishing_infrastructure')).toMatchObject({
      status: 'pass',
      detail: 'T1598 read 0 mailscan.leak.lookalike findings and 0 registered lookalikes (0 receiving mail): nothing to derive',
    });
    expect(checkOf(quiet.report, 'adversary.email.catch_all_enables_enumeration')).toMatchObject({
      status: 'skipped',
      detail: 'derived by T1589.002, not requested',
    });
    expect(checkOf(catchAllScan.report, 'adversary.email.catch_all_enables_enumeration')?.status).toBe('fail');
    expect(checkOf(catchAllScan.report, 'adversary.email.dnsbl_burned_reputation')).toMatchObject({
      status: 'pass',
      detail: 'T1589.002 read 0 mailscan.dnsbl.listed findings: nothing to derive',
    });
  });
});

/** A scan's report as the service reads it (the engine runner's mapping, its fingerprints) and what the issue tracker makes of it. */
function trackedRun(scan: Scanned, scanId: string): TargetRun {
  const result = resultOfEngineReport(engineReportSchema().parse(JSON.parse(scan.run.stdout)));
  const target = scan.report.domain;
  const now = scan.report.finished_at;
  return {
    target,
    complete: scan.report.status === 'ok',
    checks: new Map(
      (result.checks ?? []).map((check) => [check.id, { status: check.status, ...(check.coverage ? { coverage: check.coverage } : {}) }]),
    ),
    findings: result.findings.map((item) => {
      const fingerprint = fingerprintOf('acme', target, item);
      return {
        id: `fnd_${scanId}${fingerprint.slice(0, 20)}`,
        tenant: 'acme',
        scan_id: scanId,
        schedule_id: null,
        scan_type: 'email_security' as const,
        target,
        rule_id: item.rule_id,
        subject: item.subject ?? item.evidence_key ?? '',
        locations: item.locations ?? [],
        severity: item.severity,
        title: item.title,
        description: item.description,
        evidence: item.evidence,
        remediation: item.remediation,
        fingerprint,
        first_seen_at: now,
        last_seen_at: now,
        created_at: now,
      };
    }),
  };
}

describe('one issue per problem: each finding names its instance (DESIGN §15)', () => {
  const instancesOf = (report: Report, rule: string) =>
    report.findings.filter((item) => item.rule_id === rule).map((item) => [item.subject, item.fingerprint_key]);

  it('gives every finding of every scan its own subject and key within its rule', async () => {
    for (const [label, pending] of runs) {
      const { report } = await pending;
      const subjects = report.findings.map((item) => `${item.rule_id} ${item.subject}`);
      const keys = report.findings.map((item) => `${item.rule_id} ${item.fingerprint_key}`);
      expect(new Set(subjects).size, `${label}: ${subjects.join(', ')}`).toBe(report.findings.length);
      expect(new Set(keys).size, label).toBe(report.findings.length);
    }
  });

  it('names each lookalike, breach, code-search file, feed source and flagged address, and keys it by that alone', async () => {
    const [brand, disc] = await Promise.all([scanOnce('brand keyed', 'brand.test', [], {}), scanOnce('disc keyed', 'disc.test', [], {})]);

    expect(instancesOf(brand.report, 'mailscan.leak.lookalike')).toEqual([
      ['brand-login.test (lookalike of brand.test)', 'lookalike=brand-login.test'],
      ['brnad.test (lookalike of brand.test)', 'lookalike=brnad.test'],
    ]);
    expect(instancesOf(brand.report, 'mailscan.leak.breachdb_breach')).toEqual([
      ['BrandForum (breach)', 'breach=BrandForum'],
      ['Collection1 (breach)', 'breach=Collection1'],
    ]);
    expect(instancesOf(brand.report, 'mailscan.leak.code_search_hit')).toEqual([
      ['acme/app/app/settings.py', 'repository=acme/app path=app/settings.py'],
    ]);
    expect(instancesOf(brand.report, 'mailscan.leak.commercial_feed')).toEqual([
      ['LinkedIn2016 in dehashed', 'feed=dehashed source=LinkedIn2016'],
      ['MarketingList in dehashed', 'feed=dehashed source=MarketingList'],
      ['pastes in intelx', 'feed=intelx source=pastes'],
      ['collection_2019 in snusbase', 'feed=snusbase source=collection_2019'],
    ]);
    expect(instancesOf(brand.report, 'adversary.email.lookalike_phishing_infrastructure')).toEqual([
      ['brand-login.test (lookalike of brand.test, T1598)', 'technique=T1598 lookalike=brand-login.test'],
      ['brnad.test (lookalike of brand.test, T1598)', 'technique=T1598 lookalike=brnad.test'],
      ['bran.test (lookalike of brand.test, T1598)', 'technique=T1598 lookalike=bran.test'],
    ]);
    expect(instancesOf(disc.report, 'mailscan.discover.flagged_address').sort()).toEqual([
      ['dmarc-reports@disc.test', 'address=dmarc-reports@disc.test'],
      ['jane.roe@disc.test', 'address=jane.roe@disc.test'],
    ]);
  });

  it('names each block-list listing by list and listed name, and its burned-reputation finding by both and the technique', async () => {
    const { report } = await scanOnce('listed', 'rep-listed.test', [], {});
    const listed = report.findings.filter((item) => item.rule_id === 'mailscan.dnsbl.listed');
    const burned = report.findings.filter((item) => item.rule_id === 'adversary.email.dnsbl_burned_reputation');

    expect(listed.length).toBeGreaterThan(1);
    for (const item of listed) {
      expect(item.subject).toBe(`${String(item.evidence.subject)} on ${String(item.evidence.zone)}`);
      expect(item.fingerprint_key).toBe(`zone=${String(item.evidence.zone)} subject=${String(item.evidence.subject)}`);
    }
    expect(burned.map((item) => [item.subject, item.fingerprint_key])).toEqual(
      listed.map((item) => [`${item.subject} (T1598)`, `technique=T1598 ${item.fingerprint_key}`]),
    );
  });

  it('locates a listing at its block list and a feed record at its feed, so a check that did not ask that list resolves neither', async () => {
    const [listedScan, brand] = await Promise.all([
      scanOnce('listed', 'rep-listed.test', [], {}),
      scanOnce('brand keyed', 'brand.test', [], {}),
    ]);
    const listing = listedScan.report.findings.find((item) => item.rule_id === 'mailscan.dnsbl.listed')!;
    const feedRecord = brand.report.findings.find(
      (item) => item.rule_id === 'mailscan.leak.commercial_feed' && item.evidence.feed === 'dehashed',
    )!;
    const checkOfRule = (report: Report, id: string) => report.checks.find((check) => check.id === id)!;

    expect(listing.locations).toEqual(['mail:reputation', `list:${String(listing.evidence.zone)}`]);
    expect(feedRecord.locations).toEqual(['mail:leak', 'list:dehashed']);
    // The checks that found them asked those lists: they cover them.
    expect(covers(checkOfRule(listedScan.report, 'mailscan.dnsbl.listed').coverage, listing.locations!)).toBe(true);
    expect(covers(checkOfRule(brand.report, 'mailscan.leak.commercial_feed').coverage, feedRecord.locations!)).toBe(true);
    // Before: located at the surface alone, a later scan that asked only intelx resolved the dehashed record's issue.
    const onlyIntelx = { kind: 'mail' as const, surfaces: ['leak'], selectors: [], lists: ['intelx'] };
    expect(covers(onlyIntelx, feedRecord.locations!)).toBe(false);
    const otherZone = { kind: 'mail' as const, surfaces: ['reputation'], selectors: [], lists: ['bl.example.net'] };
    expect(covers(otherZone, listing.locations!)).toBe(false);
  });

  it('gives a problem seen by two scans the same key and subject even where its evidence changed', async () => {
    const [keyless, keyed] = await Promise.all([
      scanOnce('brand keyless', 'brand.test', [], {}),
      scanOnce('brand keyed', 'brand.test', [], {}),
    ]);
    const named = (scan: Scanned, rule: string, field: string, value: string) =>
      scan.report.findings.find((item) => item.rule_id === rule && item.evidence[field] === value)!;

    // The site breach: the keyless scan cannot ask which addresses are in it, the keyed one counts one.
    const [site1, site2] = [keyless, keyed].map((scan) => named(scan, 'mailscan.leak.breachdb_breach', 'breach', 'BrandForum'));
    expect(site1.evidence.addresses).not.toEqual(site2.evidence.addresses);
    expect([site2.subject, site2.fingerprint_key]).toEqual([site1.subject, site1.fingerprint_key]);
    const [brnad1, brnad2] = [keyless, keyed].map((scan) => named(scan, 'mailscan.leak.lookalike', 'lookalike', 'brnad.test'));
    expect([brnad2.subject, brnad2.fingerprint_key]).toEqual([brnad1.subject, brnad1.fingerprint_key]);
  });

  it('keeps the subject a rule with one instance per domain always had, so the issues it opened before keep matching', async () => {
    const single = /^mailscan\.(spf|dmarc\.(missing|policy_none)|dkim|dnssec|bimi|reputation\.threatintel|discover\.catch_all)/;
    const before = (domain: string, item: Report['findings'][number]) => {
      const family = item.rule_id.split('.')[1];
      if (typeof item.evidence.selector === 'string') return `${item.evidence.selector}._domainkey.${domain}`;
      return family === 'dmarc' ? `_dmarc.${domain}` : `${domain} (${family})`;
    };
    let seen = 0;
    for (const pending of runs.values()) {
      const { report } = await pending;
      for (const item of report.findings.filter((candidate) => single.test(candidate.rule_id))) {
        expect(item.subject).toBe(before(report.domain, item));
        seen += 1;
      }
    }
    expect(seen).toBeGreaterThan(5);
  });

  it('opens an issue for a lookalike that appears in the second scan, and sees the first one again', async () => {
    // The keyless scan listens to no certificate stream: it finds brnad.test (CT) only; the keyed one also brand-login.test.
    const [first, second] = await Promise.all([
      scanOnce('brand keyless', 'brand.test', [], {}),
      scanOnce('brand keyed', 'brand.test', [], {}),
    ]);
    expect(
      first.report.findings.filter((item) => item.rule_id === 'mailscan.leak.lookalike').map((item) => item.evidence.lookalike),
    ).toEqual(['brnad.test']);
    const job = (id: string) => ({ id, tenant: 'acme', scan_type: 'email_security' as const, schedule_id: null });
    const SCAN_1 = 'scan_01HZ0000000000000000000001';
    const SCAN_2 = 'scan_01HZ0000000000000000000002';

    const one = trackIssues({ job: job(SCAN_1), now: first.report.finished_at, runs: [trackedRun(first, SCAN_1)], existing: [] });
    const two = trackIssues({ job: job(SCAN_2), now: second.report.finished_at, runs: [trackedRun(second, SCAN_2)], existing: one.writes });
    const stored = new Map<string, IssueRecord>([...one.writes, ...two.writes].map((issue) => [issue.id, issue]));
    const lookalikes = (ids: string[]) =>
      ids
        .map((id) => stored.get(id)!)
        .filter((issue) => issue.rule_id === 'mailscan.leak.lookalike')
        .map((issue) => issue.subject);

    const counts = (tracked: typeof one) => ({
      new: lookalikes(tracked.changes.new).length,
      unchanged: lookalikes(tracked.changes.unchanged).length,
    });
    // Before: every lookalike's subject was "brand.test (leak)", so brand-login.test was a sighting of brnad.test's issue: 0 new.
    expect([counts(one), counts(two)]).toEqual([
      { new: 1, unchanged: 0 },
      { new: 1, unchanged: 1 },
    ]);
    expect(lookalikes(one.changes.new)).toEqual(['brnad.test (lookalike of brand.test)']);
    expect(lookalikes(two.changes.new)).toEqual(['brand-login.test (lookalike of brand.test)']);
    expect(lookalikes(two.changes.unchanged)).toEqual(['brnad.test (lookalike of brand.test)']);
  });
});

describe('mailscan --format text', () => {
  it('shows the discover and leak surfaces readably', async () => {
    const run = await runCli(
      [
        'scan',
        'brand.test',
        '--nameserver',
        dns.address,
        '--leak',
        '--format',
        'text',
        '--config',
        config('text', mailboxes.port, { lookalike: { max_candidates: 100, concurrency: 20 } }),
      ],
      { ...vendors.urls },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/leak: ok/);
    expect(run.stdout).toMatch(/lookalikes: \d+ candidates, \d+ registered/);
    expect(run.stdout).toMatch(/breach database: 1 breach/);
  });
});
