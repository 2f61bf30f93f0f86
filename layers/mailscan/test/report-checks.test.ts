import { describe, expect, it } from 'vitest';
import { catalogue } from '../src/catalogue.ts';
import { checksOf } from '../src/report-checks.ts';
import { reportSchema, type Report } from '../src/report.ts';

function report(overrides: Partial<Report> = {}): Report {
  const skipped = { status: 'skipped', reason: 'not requested' };
  return reportSchema.parse({
    scanner: { name: 'mailscan', version: 'test' },
    domain: 'example.test',
    started_at: '2026-11-24T00:00:00.000Z',
    finished_at: '2026-11-24T00:00:01.000Z',
    surfaces: {
      posture: {
        status: 'ok',
        score: 90,
        grade: 'A',
        spf: { status: 'ok', record: 'v=spf1 -all', records: ['v=spf1 -all'], lookups: 0, void_lookups: 0, all: '-all', tree: null },
        dkim: { status: 'ok', selectors_probed: 3, keys: [] },
        dmarc: { status: 'ok', record: 'v=DMARC1; p=reject', source: 'domain', policy: 'reject' },
      },
      reputation: { status: 'ok' },
      discover: skipped,
      leak: skipped,
      rua: skipped,
      header: skipped,
    },
    findings: [],
    errors: [],
    ...overrides,
  });
}

const statusOf = (checks: ReturnType<typeof checksOf>, id: string) => checks.find((check) => check.id === id)?.status;

describe('mailscan checks (one per catalogue rule)', () => {
  it('lists every rule once: pass for surfaces that ran clean, skipped for the others', () => {
    const checks = checksOf(report());
    expect(checks.map((check) => check.id)).toEqual(catalogue.map((rule) => rule.rule_id));
    expect(statusOf(checks, 'mailscan.spf.missing')).toBe('pass');
    expect(statusOf(checks, 'mailscan.dnsbl.listed')).toBe('pass');
    expect(statusOf(checks, 'mailscan.leak.lookalike')).toBe('skipped');
    expect(checks.find((check) => check.id === 'mailscan.leak.lookalike')?.detail).toBe('not requested');
    expect(statusOf(checks, 'adversary.email.catch_all_enables_enumeration')).toBe('skipped');
  });

  it('says why every passing check passed: the records read, the selectors that answered, the surface that ran', () => {
    const ran = { status: 'ok' as const };
    const everySurface = report({
      surfaces: {
        ...report().surfaces,
        posture: {
          ...report().surfaces.posture,
          dkim: { status: 'ok', selectors_probed: 3, keys: [{ selector: 's1', key_type: 'rsa', bits: 2048, revoked: false }] },
        },
        discover: ran,
        leak: ran,
        rua: ran,
        header: ran,
      },
      techniques: ['catch_all'],
    });
    const checks = checksOf(everySurface);
    const passed = checks.filter((check) => check.status === 'pass');
    expect(passed).toHaveLength(catalogue.length);
    expect(passed.filter((check) => check.detail.trim() === '' || /^ok$/i.test(check.detail))).toEqual([]);
    const detailOf = (id: string) => checks.find((check) => check.id === id)?.detail;
    expect(detailOf('mailscan.spf.missing')).toBe('SPF record read: v=spf1 -all');
    expect(detailOf('mailscan.dmarc.policy_none')).toBe('DMARC record read: v=DMARC1; p=reject');
    expect(detailOf('mailscan.dkim.not_found')).toBe('DKIM selector read: s1');
    expect(detailOf('mailscan.dnsbl.listed')).toBe('the reputation checks ran on example.test and found nothing for this rule');
    // No key answered: the pass says how many selectors were asked.
    expect(checksOf(report()).find((check) => check.id === 'mailscan.dkim.unreadable_key')?.detail).toBe(
      '3 DKIM selectors asked; no key to check',
    );
  });

  it('fails a rule with a finding, and an error spoils only its own family, or the whole surface when it names none', () => {
    const checks = checksOf(
      report({
        findings: [{ rule_id: 'mailscan.dmarc.policy_none', severity: 'medium', title: 't', detail: 'd', evidence: {}, remediation: 'r' }],
        errors: [
          { surface: 'posture', check: 'spf', message: 'SERVFAIL for example.test TXT' },
          { surface: 'reputation', check: 'sender_score', message: 'timed out' },
        ],
      }),
    );
    expect(statusOf(checks, 'mailscan.dmarc.policy_none')).toBe('fail');
    expect(statusOf(checks, 'mailscan.spf.missing')).toBe('error');
    expect(checks.find((check) => check.id === 'mailscan.spf.missing')?.detail).toBe('spf: SERVFAIL for example.test TXT');
    expect(statusOf(checks, 'mailscan.dmarc.missing')).toBe('pass');
    expect(statusOf(checks, 'mailscan.dnsbl.listed')).toBe('error');
    expect(statusOf(checks, 'mailscan.reputation.mx_score_low')).toBe('error');
  });

  it('resolves nothing for a domain that does not exist', () => {
    const checks = checksOf(report({ domain_exists: false }));
    expect(checks.filter((check) => check.status === 'pass')).toEqual([]);
  });
});
