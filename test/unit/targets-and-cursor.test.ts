import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../shared/adapters/dynamodb/cursor.ts';
import { ValidationError } from '../../shared/domain/errors.ts';
import { apexDomain } from '../../shared/domain/apex-domain.ts';
import { targetRulesWith, validateTarget } from '../../shared/domain/scan-targets.ts';
import { scanTypes } from '../../shared/domain/scan-types.ts';
import { normaliseDomain } from '../../lib/domain-name.ts';

/** The rules as the UI's prompt holds them (synchronous, the m365 rule passed in). */
const uiRules = targetRulesWith(apexDomain);

describe('target validation', () => {
  it.each([
    ['email_security', 'Example.COM.', 'example.com'],
    ['email_security', 'bücher.de', 'xn--bcher-kva.de'],
    ['email_security', 'example.co.uk', 'example.co.uk'],
    ['email_security', 'news.example.com', 'news.example.com'],
    ['email_security', 'Mail.Example.TEST.', 'mail.example.test'],
    ['email_security', 'corp.internal', 'corp.internal'],
    ['email_security', 'post.bücher.de', 'post.xn--bcher-kva.de'],
    ['ssl', 'WWW.example.com:8443', 'www.example.com:8443'],
    ['dast', 'https://app.example.com/login', 'https://app.example.com/login'],
    ['secret_scan', 'https://github.com/acme/api', 'https://github.com/acme/api'],
    ['secret_scan', 'git@github.com:acme/api.git', 'git@github.com:acme/api.git'],
    // A repository at the host's top, as a self-hosted git server serves it (README).
    ['secret_scan', 'https://git.example.com/repo.git', 'https://git.example.com/repo.git'],
    ['sbom', 'https://git.example.com/repo', 'https://git.example.com/repo'],
    ['nhi', 'ci-deploy-key', 'ci-deploy-key'],
    ['vapt', '93.184.215.0/24', '93.184.215.0/24'],
    ['vm', '2606:4700::AB', '2606:4700::ab'],
    ['vdi', 'desktop.example.com', 'desktop.example.com'],
    ['m365', 'Contoso.COM', 'contoso.com'],
    ['m365', 'contoso.co.uk', 'contoso.co.uk'],
  ] as const)('accepts %s target %s as %s', async (scanType, input, normalised) => {
    expect(await validateTarget(scanType, input)).toEqual({ ok: true, value: normalised });
    expect(uiRules[scanType](input)).toEqual({ ok: true, value: normalised });
  });

  it.each([
    ['email_security', 'localhost'],
    ['email_security', '192.0.2.1'],
    ['email_security', 'example.123'],
    ['email_security', 'https://example.com'],
    ['email_security', '-bad.example.com'],
    ['m365', 'sub.contoso.com'],
    ['m365', 'contoso.test'],
    ['m365', 'co.uk'],
    ['email_security', 'exa mple.com'],
    ['ssl', 'example.com:0'],
    ['dast', 'javascript:alert(1)'],
    ['dast', 'https://user:pw@example.com/'],
    ['secret_scan', 'http://github.com/acme/api'],
    ['secret_scan', 'https://git.example.com/'],
    ['secret_scan', 'https://git.example.com'],
    ['nhi', ''],
    ['vapt', '300.1.1.1'],
    ['vm', '10.0.0.0/8/1'],
    ['dast', `https://example.com/${'a'.repeat(3000)}`],
  ] as const)('refuses %s target %s', async (scanType, input) => {
    expect((await validateTarget(scanType, input)).ok).toBe(false);
    expect(uiRules[scanType](input).ok).toBe(false);
  });

  it.each([
    ['dast', 'http://169.254.169.254/latest/meta-data/'],
    ['dast', 'http://[::1]:8080/'],
    ['dast', 'http://2130706433/'],
    ['dast', 'http://[::ffff:169.254.169.254]/'],
    ['dast', 'https://admin.localhost/'],
    ['ai_red_team', 'http://10.1.2.3/v1/chat'],
    ['vapt', '::1'],
    ['vapt', '10.0.0.0/0'],
    ['vapt', '0.0.0.0/0'],
    ['vapt', '8.0.0.0/8'],
    ['vapt', '127.0.0.1'],
    ['vm', 'fd00:ec2::254'],
    ['vm', '192.168.1.0/24'],
    ['ssl', 'metadata.google.internal:443'],
    ['secret_scan', 'https://169.254.169.254/org/repo'],
  ] as const)('refuses %s target %s, which points inside the deployment', async (scanType, input) => {
    const result = await validateTarget(scanType, input);
    expect(uiRules[scanType](input)).toEqual(result);

    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.message).toMatch(/inside the deployment|at most 256 addresses/);
  });

  it('accepts private ranges only where the deployment allows them, and never loopback or metadata', async () => {
    const allowPrivate = { allowPrivate: true };

    expect(await validateTarget('vapt', '10.1.0.0/24', allowPrivate)).toEqual({ ok: true, value: '10.1.0.0/24' });
    expect(await validateTarget('vapt', '10.1.0.0/16', allowPrivate)).toEqual({
      ok: false,
      message: 'must cover at most 256 addresses (a /24 or narrower); split a wider network into several targets',
    });
    expect(await validateTarget('dast', 'http://192.168.1.10/', allowPrivate)).toEqual({ ok: true, value: 'http://192.168.1.10/' });
    expect((await validateTarget('vapt', '10.1.0.0/16')).ok).toBe(false);
    expect((await validateTarget('vapt', '127.0.0.1', allowPrivate)).ok).toBe(false);
    expect((await validateTarget('dast', 'http://169.254.169.254/', allowPrivate)).ok).toBe(false);
    expect((await validateTarget('vm', 'fd00:ec2::254', allowPrivate)).ok).toBe(false);
    expect(targetRulesWith(apexDomain, allowPrivate).vapt('10.1.0.0/24')).toEqual({ ok: true, value: '10.1.0.0/24' });
  });

  it('admits loopback targets only under ALLOW_LOOPBACK_TARGETS (local), never link-local or metadata, and http: repositories only there', async () => {
    const loopback = { allowPrivate: false, allowLoopback: true };
    for (const [scanType, input] of [
      ['ssl', 'localhost:8443'],
      ['ssl', '127.0.0.1:8443'],
      ['ssl', '[::1]:443'],
      ['vm', '127.0.1.0/24'],
      ['vapt', 'localhost'],
      ['secret_scan', 'http://127.0.0.1:9418/org/repo.git'],
      ['secret_scan', 'http://localhost:9418/repo.git'],
      ['secret_scan', 'https://localhost/repo.git'],
      ['dast', 'http://localhost:8080/'],
      ['ai_red_team', 'http://localhost:11434/v1/chat/completions'],
    ] as const) {
      expect(await validateTarget(scanType, input, loopback), input).toMatchObject({ ok: true });
      expect((await validateTarget(scanType, input)).ok, input).toBe(false);
    }
    expect(await validateTarget('secret_scan', 'http://github.com/org/repo', loopback)).toEqual({
      ok: false,
      message: 'repository URLs must use https',
    });
    expect(await validateTarget('secret_scan', 'http://10.0.0.5/org/repo', { ...loopback, allowPrivate: true })).toEqual({
      ok: false,
      message: 'repository URLs must use https',
    });
    expect((await validateTarget('vm', '169.254.169.254', loopback)).ok).toBe(false);
    expect((await validateTarget('vm', '10.0.0.1', loopback)).ok).toBe(false);
    expect((await validateTarget('ssl', 'metadata.google.internal:443', loopback)).ok).toBe(false);
    expect(await validateTarget('ssl', '93.184.215.14:8443')).toEqual({ ok: true, value: '93.184.215.14:8443' });
    // Documentation, this-network and loopback carried in 6to4 are refused under every setting.
    for (const input of ['192.0.2.7:8443', '0.0.0.0:443', '[::]:443', '[2002:7f00:1::1]:443']) {
      expect((await validateTarget('ssl', input, { allowPrivate: true, allowLoopback: true })).ok, input).toBe(false);
    }
  });
});

describe('one hostname rule for the API and the scanner', () => {
  it('accepts an email_security target exactly when mailscan accepts it as its argument, with the same name', async () => {
    const inputs = [
      'example.com',
      'news.example.com',
      'MAIL.example.test.',
      'bücher.de',
      'localhost',
      '10.0.0.1',
      'a..b',
      'x_y.com',
      'exa mple.com',
      'a.b.c.d.e',
    ];
    for (const input of inputs) {
      const scanner = normaliseDomain(input);
      const api = await validateTarget('email_security', input);
      expect(api, input).toEqual(scanner === null ? { ok: false, message: expect.any(String) } : { ok: true, value: scanner });
    }
  });

  it('keeps "apex domain" as the hint only', async () => {
    expect(scanTypes.email_security.targetHint).toBe('apex domain, e.g. example.com');
    expect((await validateTarget('email_security', 'news.example.com')).ok).toBe(true);
  });
});

describe('pagination cursors', () => {
  const key = { PK: 'T#acme', SK: 'SCH#sch_1' };

  it('round-trips a key for the same tenant and index', () => {
    expect(decodeCursor(encodeCursor('acme', '', key), 'acme', '', 'T#acme')).toEqual(key);
  });

  it.each([
    ['another tenant', () => decodeCursor(encodeCursor('acme', '', key), 'evil', '', 'T#evil')],
    ['another index', () => decodeCursor(encodeCursor('acme', '', key), 'acme', 'GSI1', 'T#acme#SCH#TYPE#dast')],
    ['a forged partition', () => decodeCursor(encodeCursor('evil', '', { PK: 'T#acme', SK: 'SCH#x' }), 'evil', '', 'T#evil')],
    [
      'a GSI key of another partition',
      () =>
        decodeCursor(
          encodeCursor('acme', 'GSI1', { PK: 'T#acme', SK: 'SCH#x', GSI1PK: 'T#acme#SCH#TYPE#ssl', GSI1SK: 'x' }),
          'acme',
          'GSI1',
          'T#acme#SCH#TYPE#dast',
        ),
    ],
    [
      'non-string key values',
      () =>
        decodeCursor(
          Buffer.from(JSON.stringify({ v: 1, t: 'acme', i: '', k: { PK: 'T#acme', SK: { S: 'x' } } })).toString('base64url'),
          'acme',
          '',
          'T#acme',
        ),
    ],
    ['garbage', () => decodeCursor('%%%', 'acme', '', 'T#acme')],
    ['a key without a sort key', () => decodeCursor(encodeCursor('acme', '', { PK: 'T#acme' }), 'acme', '', 'T#acme', 'SCH#')],
    ['a key with an extra attribute', () => decodeCursor(encodeCursor('acme', '', { ...key, x: 'y' }), 'acme', '', 'T#acme', 'SCH#')],
    [
      'the quota counter key',
      () => decodeCursor(encodeCursor('acme', '', { PK: 'T#acme', SK: 'META#schedule-count' }), 'acme', '', 'T#acme', 'SCH#'),
    ],
    [
      'a key of another listing',
      () => decodeCursor(encodeCursor('acme', '', { PK: 'T#acme', SK: 'SCAN#scan_1' }), 'acme', '', 'T#acme', 'SCH#'),
    ],
    [
      'a GSI key of a longer partition',
      () =>
        decodeCursor(
          encodeCursor('acme', 'GSI1', { PK: 'T#acme', SK: 'SCH#x', GSI1PK: 'T#acme#SCH#TYPE#dastx', GSI1SK: 'x' }),
          'acme',
          'GSI1',
          'T#acme#SCH#TYPE#dast',
        ),
    ],
  ])('refuses %s', (_name, decode) => {
    expect(decode).toThrow(ValidationError);
  });
});
