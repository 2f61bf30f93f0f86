import { describe, expect, it } from 'vitest';
import { catalogue } from '../../src/catalogue.ts';
import { CheckRecorder } from '../../src/scan/check-recorder.ts';

const now = () => new Date('2026-11-24T00:00:00.000Z');
const statusOf = (checks: { id: string; status: string; detail: string }[], id: string) => checks.find((check) => check.id === id);

describe('mailscan checks, as the surfaces record them', () => {
  it('lists every rule once, in catalogue order; a surface that did not run says why', () => {
    const { checks } = new CheckRecorder('example.test', now).surface('leak', null, 'not requested').finish();

    expect(checks.map((check) => check.id)).toEqual(catalogue.map((rule) => rule.rule_id));
    expect(statusOf(checks, 'mailscan.leak.lookalike')).toMatchObject({ status: 'skipped', detail: 'not requested' });
  });

  it('fails a rule with a finding, and lets an error beat a pass of the same rule', () => {
    const { checks } = new CheckRecorder('example.test', now)
      .recorded('posture', [
        { rules: ['mailscan.dmarc.missing', 'mailscan.dmarc.policy_none'], outcome: 'ran', detail: 'DMARC record: v=DMARC1; p=none' },
        { rules: ['mailscan.spf.missing'], outcome: 'ran', detail: 'SPF record at example.test: v=spf1 -all' },
        { rules: ['mailscan.spf.missing'], outcome: 'error', detail: 'SERVFAIL for example.test TXT' },
      ])
      .found([{ rule_id: 'mailscan.dmarc.policy_none', severity: 'medium', title: 't', detail: 'd', evidence: {}, remediation: 'r' }])
      .finish();

    expect(statusOf(checks, 'mailscan.dmarc.policy_none')).toMatchObject({
      status: 'fail',
      coverage: { kind: 'mail', surfaces: ['posture'] },
    });
    expect(statusOf(checks, 'mailscan.dmarc.missing')).toMatchObject({ status: 'pass', detail: 'DMARC record: v=DMARC1; p=none' });
    expect(statusOf(checks, 'mailscan.spf.missing')).toMatchObject({ status: 'error', detail: 'SERVFAIL for example.test TXT' });
  });

  it('spoils only the family an unrecorded surface error names, or the whole surface when it names none', () => {
    const result = (check: string) => ({
      status: 'error' as const,
      data: {},
      findings: [],
      errors: [{ surface: 'header', check, message: 'unreadable' }],
    });

    const family = new CheckRecorder('example.test', now).surface('header', result('arc'), '').finish().checks;
    const whole = new CheckRecorder('example.test', now).surface('header', result('header'), '').finish().checks;

    expect(statusOf(family, 'mailscan.header.arc_anomaly')?.status).toBe('error');
    expect(statusOf(whole, 'mailscan.header.received_anomaly')).toMatchObject({ status: 'error', detail: 'header: unreadable' });
  });

  it('makes every check of the named surfaces an error with the reason, never a pass', () => {
    const { checks, status } = new CheckRecorder('example.test', now)
      .recorded('posture', [{ rules: ['mailscan.spf.missing'], outcome: 'ran', detail: 'read' }])
      .error(['posture', 'reputation'], 'the DNS resolver 127.0.0.1:53 is unreachable')
      .finish();

    const dns = checks.filter((check) => ['posture', 'reputation'].includes(catalogue.find((rule) => rule.rule_id === check.id)!.surface));
    expect(new Set(dns.map((check) => `${check.status}: ${check.detail}`))).toEqual(
      new Set(['error: the DNS resolver 127.0.0.1:53 is unreachable']),
    );
    expect(status).toBe('error');
  });

  it('makes a rule of a surface that ran but that no check recorded an error saying so, never a pass', () => {
    const { checks } = new CheckRecorder('example.test', now)
      .surface(
        'discover',
        {
          status: 'ok',
          data: {},
          findings: [],
          errors: [],
          checks: [{ rules: ['mailscan.discover.catch_all'], outcome: 'ran', detail: 'MX mx.example.test rejected a random address' }],
        },
        'not requested',
      )
      .adversary(['T1589.002'], [], [])
      .finish();

    expect(statusOf(checks, 'mailscan.discover.catch_all')).toMatchObject({ status: 'pass', coverage: { surfaces: ['discover'] } });
    expect(statusOf(checks, 'mailscan.discover.flagged_address')).toMatchObject({
      status: 'error',
      detail: 'the discover surface ran but no check of it reported on this rule',
    });
    expect(checks.filter((check) => check.id.startsWith('adversary.')).map((check) => [check.status, check.detail])).toEqual(
      Array(3).fill(['error', 'the adversary surface ran but no check of it reported on this rule']),
    );
  });

  it('makes a technique that reads a check that could not complete an error, and one that did not run skipped', () => {
    const technique = (rule: string, base: string) => ({ rules: [rule], outcome: 'ran' as const, detail: `read ${base}`, reads: [base] });
    const { checks } = new CheckRecorder('example.test', now)
      .recorded('discover', [{ rules: ['mailscan.discover.catch_all'], outcome: 'error', detail: 'port 25 refused' }])
      .recorded('reputation', [{ rules: ['mailscan.dnsbl.listed'], outcome: 'ran', detail: 'dnsbl: not listed' }])
      .skip('leak', 'not requested')
      .adversary(
        ['T1589.002', 'T1598'],
        [],
        [
          technique('adversary.email.catch_all_enables_enumeration', 'mailscan.discover.catch_all'),
          technique('adversary.email.dnsbl_burned_reputation', 'mailscan.dnsbl.listed'),
          technique('adversary.email.lookalike_phishing_infrastructure', 'mailscan.leak.lookalike'),
        ],
      )
      .finish();

    expect(statusOf(checks, 'adversary.email.catch_all_enables_enumeration')).toMatchObject({
      status: 'error',
      detail: 'read mailscan.discover.catch_all; but mailscan.discover.catch_all, which it reads, could not complete: port 25 refused',
    });
    expect(statusOf(checks, 'adversary.email.dnsbl_burned_reputation')).toMatchObject({
      status: 'pass',
      detail: 'read mailscan.dnsbl.listed',
      coverage: { surfaces: ['adversary'] },
    });
    expect(statusOf(checks, 'adversary.email.lookalike_phishing_infrastructure')).toMatchObject({
      status: 'skipped',
      detail: 'mailscan.leak.lookalike, which it reads, did not run: not requested',
    });
  });
});
