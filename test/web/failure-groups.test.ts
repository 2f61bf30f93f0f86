import { describe, expect, it } from 'vitest';
import { failureGroups, failureLine, MAX_MESSAGES } from '../../web/src/failure-groups.ts';
import type { ScanCheck, ScanError } from '../../shared/domain/scan-job.ts';

// What tlsscan reports, check by check, for an endpoint that refuses the connection and for one that
// answers plain HTTP (recorded from the built CLI against a closed port and python3 -m http.server).
const TLS_RULES = [
  'tls.protocol.sslv3',
  'tls.protocol.tls10',
  'tls.protocol.tls11',
  'tls.protocol.no_modern',
  'tls.cipher.insecure',
  'tls.cipher.sweet32',
  'tls.cipher.no_forward_secrecy',
  'tls.dh.weak_group',
  'tls.cert.expired',
  'tls.cert.expires_soon',
  'tls.cert.not_yet_valid',
  'tls.cert.hostname_mismatch',
  'tls.cert.untrusted',
  'tls.cert.incomplete_chain',
  'tls.cert.weak_key',
  'tls.cert.weak_signature',
  'tls.renegotiation.insecure',
  'tls.compression.enabled',
  'tls.heartbleed',
];

function tlsDetails(root: string): string[] {
  return [
    `SSLv2 probe: ${root}; SSLv3 probe: ${root}`,
    `TLSv1.0 probe: ${root}`,
    `TLSv1.1 probe: ${root}`,
    `${root}; ${root}`,
    ...Array.from({ length: 4 }, () => `no TLS handshake: ${root}`),
    ...Array.from({ length: 8 }, () => 'no TLS handshake succeeded, so no certificate was received'),
    `no TLS handshake: ${root}`,
    'no TLS handshake succeeded',
    'no TLS handshake succeeded',
  ];
}

function erroredChecks(target: string, root: string): ScanCheck[] {
  return tlsDetails(root).map((detail, index) => ({ target, id: TLS_RULES[index], title: TLS_RULES[index], status: 'error', detail }));
}

describe('failure groups', () => {
  it('turns a 60-target TLS scan with 1,140 errored checks into two lines: 59 refused, 1 plain HTTP', () => {
    const targets = Array.from({ length: 60 }, (_, index) => `127.0.0.1:${8040 + index}`);
    const plain = '127.0.0.1:8099';
    const checks = targets.flatMap((target) =>
      target === plain
        ? erroredChecks(target, 'not a TLS record (first bytes 485454502f, text "HTTP/")')
        : erroredChecks(target, `${target}: ECONNREFUSED`),
    );
    // The dispatcher also records each engine error once more, prefixed with its target.
    const errors: ScanError[] = checks.map((check) => ({ runner: 'ssl', message: `${check.target}: ${check.detail}` }));

    const groups = failureGroups({ target: targets[0], targets: targets.slice(1), errors, checks });

    expect(checks.length + errors.length).toBe(2280);
    expect(groups.map((group) => failureLine(group, 60))).toEqual([
      '59 of 60 targets refused the connection (nothing listens on that port)',
      '127.0.0.1:8099 answered plain HTTP, not TLS',
    ]);
    expect(groups[0].targets).toHaveLength(59);
    expect(groups[0].targets).not.toContain(plain);
    // Every check the cause left in error is counted with it, the follow-on certificate checks too.
    expect(groups[0].checks).toEqual([...TLS_RULES].sort());
    expect(groups[1].checks).toEqual([...TLS_RULES].sort());
    expect(groups[0].messages.length).toBeLessThanOrEqual(MAX_MESSAGES);
    expect(groups[0].messageCount).toBeGreaterThan(MAX_MESSAGES);
  });

  it('says "All N targets" when one cause stopped every target, and names the one target when there is one', () => {
    const checks = ['a.example:443', 'b.example:443'].flatMap((target) =>
      erroredChecks(target, `no answer from 192.0.2.1:443 within 10000 ms`),
    );
    const all = failureGroups({ target: 'a.example:443', targets: ['b.example:443'], errors: [], checks });
    const one = failureGroups({
      target: 'a.example:443',
      targets: [],
      errors: [],
      checks: checks.filter((check) => check.target === 'a.example:443'),
    });

    expect(all.map((group) => failureLine(group, 2))).toEqual(['All 2 targets did not answer in time']);
    expect(one.map((group) => failureLine(group, 1))).toEqual(['a.example:443 did not answer in time']);
  });

  it("keeps a scanner's own message as written after a colon, and groups it across targets by what the messages share", () => {
    const errors: ScanError[] = [
      { runner: 'email_security', message: 'one.com: resolver exploded at step 3' },
      { runner: 'email_security', message: 'two.com: resolver exploded at step 7' },
      { runner: 'dispatch', message: 'the runner crashed' },
    ];

    const groups = failureGroups({ target: 'one.com', targets: ['two.com', 'three.com'], errors, checks: [] });

    expect(groups.map((group) => failureLine(group, 3))).toEqual(['2 of 3 targets: resolver exploded at step N', 'The runner crashed']);
    expect(groups[0].messages).toEqual(['resolver exploded at step 3', 'resolver exploded at step 7']);
  });

  it('keeps a follow-on message when it is all a target has, and files time-outs of the invocation under the target', () => {
    const checks: ScanCheck[] = [
      { target: 'a.example', id: 'tls.heartbleed', title: 'Heartbleed', status: 'error', detail: 'no TLS handshake succeeded' },
    ];
    const errors: ScanError[] = [{ runner: 'dispatch', message: 'no time left in the invocation for target b.example' }];

    const groups = failureGroups({ target: 'a.example', targets: ['b.example'], errors, checks });

    expect(groups.map((group) => failureLine(group, 2))).toEqual([
      'a.example: no TLS handshake succeeded',
      'b.example was not scanned: the scan ran out of time',
    ]);
  });

  it('ignores passing, failing and skipped checks: they are results, not failures', () => {
    const checks: ScanCheck[] = [
      { target: 'a.example', id: 'r.one', title: 'One', status: 'pass', detail: 'connection refused was expected' },
      { target: 'a.example', id: 'r.two', title: 'Two', status: 'fail', detail: 'ECONNREFUSED' },
      { target: 'a.example', id: 'r.three', title: 'Three', status: 'skipped', detail: 'NETSCAN_OSV_URL is not set' },
    ];
    expect(failureGroups({ target: 'a.example', targets: [], errors: [], checks })).toEqual([]);
  });
});
