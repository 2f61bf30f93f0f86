import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { reportSchema } from '../../src/report.ts';
import { buildCli, runCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

const NO_LISTS = ['--config', 'test/fixtures/mailscan/config/no-lists.json'];
const ruaReport = fileURLToPath(new URL('../../../../test/fixtures/mailscan/rua/google.xml', import.meta.url));
const message = fileURLToPath(new URL('../../../../test/fixtures/mailscan/header/received-anomalies.eml', import.meta.url));
const REPUTATION_KEYED = ['mailscan.reputation.mx_score_low', 'mailscan.reputation.threatintel_blocked'];

/**
 * The checks of a report are what the code that ran them recorded (DESIGN §11, §15), driven through
 * the built CLI: a check that never ran says why, and a resolver that dies makes every check that
 * asks DNS an error with the resolver's reason, never a pass and never "does not exist".
 */
describe('mailscan scan: checks recorded as they ran', () => {
  let dns: TestDnsServer;

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('reads the two keyed reputation checks as skipped, each saying which key this deployment lacks', async () => {
    const { report } = await scan('good.test', dns.address, NO_LISTS);

    const keyed = report.checks.filter((check) => REPUTATION_KEYED.includes(check.id));
    expect(keyed).toEqual([
      expect.objectContaining({
        id: 'mailscan.reputation.threatintel_blocked',
        status: 'skipped',
        detail: 'no threatintel key in this deployment (MAILSCAN_THREATINTEL_KEY)',
      }),
      expect.objectContaining({
        id: 'mailscan.reputation.mx_score_low',
        status: 'skipped',
        detail: 'no senderscore key in this deployment (MAILSCAN_SENDERSCORE_KEY)',
      }),
    ]);
    expect(keyed.every((check) => check.coverage === undefined)).toBe(true);
  });

  it('says what a passing check read and what it covered', async () => {
    const { report } = await scan('good.test', dns.address, NO_LISTS);

    const spf = report.checks.find((check) => check.id === 'mailscan.spf.missing');
    expect(spf).toMatchObject({ status: 'pass', detail: expect.stringMatching(/^SPF record at good\.test: v=spf1 /) });
    expect(spf?.coverage).toEqual({ kind: 'mail', surfaces: ['posture'], selectors: expect.any(Array), lists: [] });
    expect(report.checks.find((check) => check.id === 'mailscan.spf.lookup_limit')).toMatchObject({
      status: 'pass',
      detail: 'spf lookup limit: within limit (2 of 10 lookups)',
    });
    expect(report.checks.every((check) => check.status !== 'pass' || check.detail !== '')).toBe(true);
  });

  it('covers every DKIM selector that answered, and the weak-key check the keys it examined', async () => {
    const { report } = await scan('dkim512.test', dns.address, NO_LISTS);

    const notFound = report.checks.find((check) => check.id === 'mailscan.dkim.not_found');
    expect(notFound?.detail).toMatch(/^\d+ selectors probed; keys at mail$/);
    const probed = Number(/^(\d+)/.exec(notFound?.detail ?? '')?.[1]);
    expect(notFound?.coverage).toMatchObject({ kind: 'mail', surfaces: ['posture'] });
    expect(notFound?.coverage?.kind === 'mail' && notFound.coverage.selectors).toHaveLength(probed);
    expect(report.checks.find((check) => check.id === 'mailscan.dkim.weak_key')).toMatchObject({
      status: 'fail',
      coverage: { kind: 'mail', surfaces: ['reputation'], selectors: ['mail'], lists: [] },
    });
  });

  it.each(['good.test', 'bare.test', 'rep-listed.test', 'dkim512.test'])(
    'decides every rule of a scan of %s with its files by the check that ran it',
    async (zone) => {
      const { report } = await scan(zone, dns.address, ['--rua', ruaReport, '--eml', message]);

      expect(report.checks.filter((check) => /no check of it reported|surface ran$|applied$/.test(check.detail))).toEqual([]);
      expect(report.checks.filter((check) => check.status === 'pass' && check.coverage === undefined)).toEqual([]);
      expect(report.checks.find((check) => check.id === 'mailscan.header.dkim_signature_invalid')).toMatchObject({
        status: 'pass',
        detail: 'the message has no DKIM-Signature',
      });
    },
  );

  it.each([0, 1, 3])('makes every DNS check an error naming the resolver when it dies after %i answers', async (answers) => {
    const dying = await startDnsServer({ zoneDir, dieAfter: answers });
    try {
      const run = await runCli(['scan', 'good.test', '--nameserver', dying.address, '--rua', ruaReport, ...NO_LISTS]);

      expect(run.code, run.stderr).toBe(0);
      const report = reportSchema.parse(JSON.parse(run.stdout));
      expect(report.checks).toHaveLength(31);
      expect(report.checks.filter((check) => /NXDOMAIN|does not exist/.test(check.detail))).toEqual([]);
      const dnsChecks = report.checks.filter(
        (check) => !check.id.startsWith('mailscan.header.') && check.id !== 'mailscan.dmarc.rua_misalignment',
      );
      // Nothing the dead resolver did not answer passes: a check asking DNS either read an answer it got before the end, or is an error.
      for (const check of dnsChecks.filter((item) => item.status === 'error')) expect(check.detail).not.toBe('');
      if (answers === 0) {
        expect(report.domain_exists).toBeNull();
        const asked = dnsChecks.filter(
          (check) =>
            !check.id.startsWith('mailscan.discover.') && !check.id.startsWith('mailscan.leak.') && !check.id.startsWith('adversary.'),
        );
        expect(asked.map((check) => [check.status, check.detail.includes(dying.address)])).toEqual(asked.map(() => ['error', true]));
      } else {
        expect(dnsChecks.filter((check) => check.status === 'error').length).toBeGreaterThan(0);
        expect(dnsChecks.filter((check) => check.status === 'pass' && check.id.startsWith('mailscan.reputation.'))).toEqual([]);
      }
      expect(report.checks.find((check) => check.id === 'mailscan.dmarc.rua_misalignment')?.status).not.toBe('error');
      expect(report.checks.find((check) => check.id === 'mailscan.leak.lookalike')).toMatchObject({
        status: 'skipped',
        detail: 'not requested',
      });
    } finally {
      await dying.close();
    }
  });
});
