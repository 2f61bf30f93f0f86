import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRawResolver } from '../../../../lib/dns/raw-resolver.ts';
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import { catalogue } from '../../src/catalogue.ts';
import { runHeader, type DkimSignatureVerdict } from '../../src/header/run-header.ts';
import { placeFindings } from '../../src/place-findings.ts';
import type { Report } from '../../src/report.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';
import { arcSeal, BASE_MESSAGE, closeDkimpy, dkimpyVerify, dkimSign, makeTestKeys, type TestKeys } from '../helpers/signed-messages.ts';

const fixtures = fileURLToPath(new URL('../../../../test/fixtures/mailscan/header/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'header-surface-'));
const NOW = () => new Date('2026-11-23T10:00:00Z');

/** Removes every header field whose name is in `names` and whose value contains `marker`. */
function dropFields(message: Buffer, names: string[], marker: string): Buffer {
  const text = message.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const fields = text.slice(0, split).split(/\r\n(?![ \t])/);
  const kept = fields.filter(
    (field) => !(names.includes(field.slice(0, field.indexOf(':')).toLowerCase()) && field.replace(/\s+/g, '').includes(marker)),
  );
  return Buffer.from(`${kept.join('\r\n')}${text.slice(split)}`, 'latin1');
}

const replace = (message: Buffer, from: string, to: string) => {
  const text = message.toString('latin1');
  if (!text.includes(from)) throw new Error(`fixture has no "${from}"`);
  return Buffer.from(text.replace(from, to), 'latin1');
};

describe('header surface against dkimpy-signed messages', () => {
  let dns: TestDnsServer;
  let resolver: Resolver;
  let keys: TestKeys;
  const messages = new Map<string, Buffer>();

  const ours = async (name: string) => {
    const path = join(work, `${name}.eml`);
    writeFileSync(path, messages.get(name) ?? Buffer.alloc(0));
    const result = await runHeader({ file: path, resolver, now: NOW });
    const data = result.data as { dkim: DkimSignatureVerdict[]; arc: { result: string; structure: string; ams: string | null } };
    return { ...result, data, rules: result.findings.map((item) => item.rule_id) };
  };

  beforeAll(async () => {
    keys = makeTestKeys();
    dns = await startDnsServer({ zoneDir, zones: [{ text: keys.zone }] });
    resolver = makeRawResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2_000, attempts: 2 });
    const rsa = { selector: 'rsa', domain: 'signer.test', key: keys.rsa };
    const [relaxed, ed25519, simpleLength, sha1] = await Promise.all([
      dkimSign(BASE_MESSAGE, { ...rsa, canonicalize: ['relaxed', 'relaxed'] }),
      dkimSign(BASE_MESSAGE, {
        selector: 'ed',
        domain: 'signer.test',
        key: keys.ed25519,
        algorithm: 'ed25519-sha256',
        canonicalize: ['relaxed', 'relaxed'],
      }),
      dkimSign(BASE_MESSAGE, { ...rsa, canonicalize: ['simple', 'simple'], length: true }),
      dkimSign(BASE_MESSAGE, { ...rsa, algorithm: 'rsa-sha1', canonicalize: ['relaxed', 'simple'] }),
    ]);
    messages.set('valid', relaxed);
    messages.set('body-changed', replace(relaxed, 'the numbers are attached.', 'the numbers have changed.'));
    messages.set('header-changed', replace(relaxed, 'Subject: Quarterly numbers', 'Subject: Quarterly numbers (urgent)'));
    messages.set('ed25519', ed25519);
    messages.set('simple-length-appended', Buffer.concat([simpleLength, Buffer.from('P.S. appended by a list\r\n')]));
    messages.set('rsa-sha1', sha1);
    messages.set(
      'two-signatures-one-bad',
      replace(
        await dkimSign(relaxed, { selector: 'ed', domain: 'signer.test', key: keys.ed25519, algorithm: 'ed25519-sha256' }),
        'To: Bob',
        'To: Eve',
      ),
    );

    const arc1 = await arcSeal(relaxed, 'fwd1.test', keys.rsa, 'none');
    const arc2 = await arcSeal(arc1, 'fwd2.test', keys.rsa, 'pass');
    const arc3 = await arcSeal(arc2, 'fwd3.test', keys.rsa, 'pass');
    messages.set('arc-1', arc1);
    messages.set('arc-2', arc2);
    messages.set('arc-3', arc3);
    messages.set('arc-gap', dropFields(arc3, ['arc-seal', 'arc-message-signature', 'arc-authentication-results'], 'i=2;'));
    messages.set('arc-seal-tampered', replace(arc2, 'i=1; fwd1.test; dkim=pass', 'i=1; fwd1.test; dkim=fail'));
    messages.set('arc-cv-fail', await arcSeal(arc1, 'fwd2.test', keys.rsa, 'fail'));
    messages.set('arc-body-changed', replace(arc2, 'the numbers are attached.', 'the numbers are not attached.'));
  });

  afterAll(async () => {
    closeDkimpy();
    await dns?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("gives dkimpy's verdict on every DKIM signature and ARC chain", async () => {
    for (const name of messages.keys()) {
      const [mine, theirs] = await Promise.all([ours(name), dkimpyVerify(messages.get(name) ?? Buffer.alloc(0), keys.records)]);

      expect({ name, dkim: mine.data.dkim.map((verdict) => verdict.result === 'pass' && verdict.body_hash === 'pass') }).toEqual({
        name,
        dkim: theirs.dkim,
      });
      expect({ name, arc: mine.data.arc.result }).toEqual({ name, arc: theirs.arc });
    }
  });

  it('passes valid RSA and Ed25519 signatures, and l= with text appended after signing', async () => {
    for (const name of ['valid', 'ed25519', 'simple-length-appended']) {
      const result = await ours(name);

      expect(result.data.dkim).toEqual([
        expect.objectContaining({ domain: 'signer.test', body_hash: 'pass', result: 'pass', deprecated_algorithm: false }),
      ]);
      expect(result.rules).toEqual([]);
      expect(result.errors).toEqual([]);
    }
    expect((await ours('ed25519')).data.dkim[0]).toMatchObject({ algorithm: 'ed25519-sha256', selector: 'ed' });
    expect((await ours('simple-length-appended')).data.dkim[0]).toMatchObject({
      canonicalization: 'simple/simple',
      body_length_limit: expect.any(Number),
    });
  });

  it('finds a body changed after signing as a body hash mismatch', async () => {
    const result = await ours('body-changed');

    expect(result.rules).toEqual(['mailscan.header.dkim_body_mismatch']);
    expect(result.findings[0]).toMatchObject({
      severity: 'critical',
      evidence: { domain: 'signer.test', selector: 'rsa', body_hash_signed: expect.any(String), body_hash_computed: expect.any(String) },
    });
  });

  it('finds a header changed after signing as an invalid signature with a sound body hash', async () => {
    const result = await ours('header-changed');

    expect(result.data.dkim).toEqual([expect.objectContaining({ body_hash: 'pass', result: 'fail' })]);
    expect(result.rules).toEqual(['mailscan.header.dkim_signature_invalid']);
    expect(result.findings[0]).toMatchObject({ severity: 'high', evidence: { domain: 'signer.test', selector: 'rsa' } });
  });

  it('verifies rsa-sha1 and reports it as deprecated', async () => {
    const result = await ours('rsa-sha1');

    expect(result.data.dkim).toEqual([expect.objectContaining({ algorithm: 'rsa-sha1', result: 'pass', deprecated_algorithm: true })]);
  });

  it('judges each of several signatures on its own', async () => {
    const result = await ours('two-signatures-one-bad');

    expect(result.data.dkim.map((verdict) => [verdict.selector, verdict.result])).toEqual([
      ['ed', 'fail'],
      ['rsa', 'fail'],
    ]);
    expect(result.rules).toEqual(['mailscan.header.dkim_signature_invalid', 'mailscan.header.dkim_signature_invalid']);
  });

  it('passes ARC chains of one to three sets', async () => {
    for (const [name, sets] of [
      ['arc-1', 1],
      ['arc-2', 2],
      ['arc-3', 3],
    ] as const) {
      const result = await ours(name);

      expect(result.data.arc).toMatchObject({
        result: 'pass',
        structure: 'ok',
        ams: 'pass',
        sets: Array.from({ length: sets }, (_, i) =>
          expect.objectContaining({ i: i + 1, components: ['AAR', 'AMS', 'AS'], cv: i === 0 ? 'none' : 'pass' }),
        ),
      });
      expect(result.rules).toEqual([]);
    }
  });

  it('finds a gap in the ARC chain', async () => {
    const result = await ours('arc-gap');

    expect(result.data.arc).toMatchObject({ result: 'fail', structure: 'broken' });
    expect(result.findings).toEqual([
      expect.objectContaining({
        rule_id: 'mailscan.header.arc_anomaly',
        severity: 'high',
        detail: 'ARC set i=2 is missing: the chain has instances 1, 3',
      }),
    ]);
  });

  it('finds a seal that no longer verifies', async () => {
    const result = await ours('arc-seal-tampered');

    expect(result.data.arc).toMatchObject({ result: 'fail', structure: 'ok' });
    expect(result.findings).toEqual([
      expect.objectContaining({
        rule_id: 'mailscan.header.arc_signature_invalid',
        severity: 'high',
        evidence: expect.objectContaining({ component: 'AS' }),
      }),
    ]);
  });

  it('finds a newest AMS broken by a body change', async () => {
    const result = await ours('arc-body-changed');

    expect(result.rules).toEqual(['mailscan.header.dkim_body_mismatch', 'mailscan.header.arc_signature_invalid']);
    expect(result.findings[1].evidence).toMatchObject({ component: 'AMS', i: 2, d: 'fwd2.test' });
  });

  it('finds a final seal that says cv=fail', async () => {
    const result = await ours('arc-cv-fail');

    expect(result.data.arc.result).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        rule_id: 'mailscan.header.arc_seal_broken',
        severity: 'high',
        // The message it is in names the finding's instance (src/finding-identity.ts).
        evidence: {
          i: 2,
          d: 'fwd2.test',
          s: 'arc',
          cv: 'fail',
          message_id: (result.data as unknown as { message: { message_id: string | null } }).message.message_id,
        },
      }),
    ]);
  });

  it('reports a key it cannot fetch as an error, not a finding', async () => {
    messages.set('unknown-selector', await dkimSign(BASE_MESSAGE, { selector: 'gone', domain: 'signer.test', key: keys.rsa }));

    const result = await ours('unknown-selector');

    expect(result.rules).toEqual([]);
    expect(result.errors).toEqual([expect.objectContaining({ check: 'dkim', message: expect.stringContaining('no key') })]);
  });

  it('records a check for each of its six rules, in words, for every message', async () => {
    messages.set('unknown-selector', await dkimSign(BASE_MESSAGE, { selector: 'gone', domain: 'signer.test', key: keys.rsa }));
    const headerRules = catalogue.filter((rule) => rule.surface === 'header').map((rule) => rule.rule_id);
    const checkOf = async (name: string, rule: string) => (await ours(name)).checks?.find((check) => check.rules.includes(rule));

    for (const name of messages.keys()) {
      const recorded = (await ours(name)).checks?.flatMap((check) => check.rules) ?? [];
      expect(new Set(recorded), name).toEqual(new Set(headerRules));
    }
    expect(await checkOf('valid', 'mailscan.header.dkim_signature_invalid')).toEqual({
      rules: ['mailscan.header.dkim_body_mismatch', 'mailscan.header.dkim_signature_invalid'],
      outcome: 'ran',
      detail: "the message's 1 DKIM-Signature verified: signer.test s=rsa body hash pass, signature pass",
    });
    expect(await checkOf('unknown-selector', 'mailscan.header.dkim_body_mismatch')).toMatchObject({
      outcome: 'error',
      detail: expect.stringContaining('signer.test s=gone: neutral (no key'),
    });
    expect(await checkOf('arc-2', 'mailscan.header.arc_signature_invalid')).toMatchObject({
      outcome: 'ran',
      detail: expect.stringMatching(/^the ARC chain of 2 sets verified: pass/),
    });
    expect(await checkOf('arc-gap', 'mailscan.header.arc_signature_invalid')).toMatchObject({
      outcome: 'skipped',
      detail: 'the 2 ARC sets do not form a sound chain (see the ARC structure check), so its signatures were not judged',
    });
  });

  it('walks the Received chain oldest first and finds its anomalies', async () => {
    const result = await runHeader({ file: join(fixtures, 'received-anomalies.eml'), resolver, now: NOW });
    const hops = (result.data as { received: { hops: { hop: number; by: string; timestamp: string | null }[] } }).received.hops;

    expect(hops.map((hop) => [hop.hop, hop.by, hop.timestamp])).toEqual([
      [1, 'submit.example.org', null],
      [2, 'mx1.example.org', '2026-11-23T10:00:00.000Z'],
      [3, 'relay.example', '2026-11-23T09:05:00.000Z'],
      [4, 'mx2.relay.example', '2026-11-23T09:10:00.000Z'],
      [5, 'inbound.example.com', '2026-11-24T12:00:00.000Z'],
    ]);
    expect(result.findings.map((item) => [item.evidence.kind, item.evidence.hop, item.severity])).toEqual([
      ['missing_date', 1, 'medium'],
      ['backwards_time', 3, 'high'],
      ['loopback_helo', 3, 'high'],
      ['private_helo', 4, 'medium'],
      ['long_delay', 5, 'medium'],
    ]);
    expect(result.findings.every((item) => item.rule_id === 'mailscan.header.received_anomaly')).toBe(true);
  });

  it('names each anomaly by its message and its place in it, so two of one kind, or one in two messages, are two problems', async () => {
    const original = join(fixtures, 'received-anomalies.eml');
    const other = join(work, 'received-anomalies-other.eml');
    writeFileSync(other, replace(readFileSync(original), '<invoice-1@example.org>', '<invoice-2@example.org>'));
    const [one, two] = await Promise.all(
      [original, other].map(async (file) =>
        placeFindings<Pick<Report, 'domain' | 'findings'>>({
          domain: 'example.com',
          findings: (await runHeader({ file, resolver, now: NOW })).findings,
        }),
      ),
    );

    expect(one.findings.map((item) => item.subject)).toEqual([
      'Received hop 1 (missing_date) in message <invoice-1@example.org>',
      'Received hop 3 (backwards_time) in message <invoice-1@example.org>',
      'Received hop 3 (loopback_helo) in message <invoice-1@example.org>',
      'Received hop 4 (private_helo) in message <invoice-1@example.org>',
      'Received hop 5 (long_delay) in message <invoice-1@example.org>',
    ]);
    expect(one.findings[1].fingerprint_key).toBe('message=<invoice-1@example.org> kind=backwards_time hop=3');
    const keys = [...one.findings, ...two.findings].map((item) => item.fingerprint_key);
    expect(new Set(keys).size).toBe(10);
  });

  it('refuses what is not a message, and a message over the size limit, as error entries', async () => {
    const notMail = join(work, 'report.xml');
    writeFileSync(notMail, '<?xml version="1.0"?><feedback/>');
    const huge = join(work, 'huge.eml');
    writeFileSync(huge, Buffer.concat([BASE_MESSAGE, Buffer.alloc(60 * 1024 * 1024, 0x61)]));

    const [xml, big] = await Promise.all([runHeader({ file: notMail, resolver, now: NOW }), runHeader({ file: huge, resolver, now: NOW })]);

    expect(xml).toMatchObject({
      status: 'error',
      findings: [],
      errors: [{ surface: 'header', check: 'message', message: expect.stringMatching(/^report\.xml: not an RFC 5322 message/) }],
      checks: [{ outcome: 'error', detail: expect.stringMatching(/^report\.xml not read: not an RFC 5322 message/) }],
    });
    expect(xml.checks?.[0].rules).toHaveLength(6);
    expect(big).toMatchObject({
      status: 'error',
      errors: [{ message: expect.stringMatching(/^huge\.eml: message is \d+ bytes, over the 52428800-byte limit/) }],
    });
  });
});
