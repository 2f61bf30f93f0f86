import { describe, expect, it } from 'vitest';
import { runReputation } from '../../src/reputation/index.ts';
import type { PendingReputationInput, ReputationInput } from '../../src/reputation/context.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';
import { context } from './test-context.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('reputation with pending posture input', () => {
  it('starts the domain-only checks before posture has answered, and the MX checks once MX is known', async () => {
    const resolver = makeFakeResolver({});
    const mx = deferred<ReputationInput['mx']>();
    const pending: PendingReputationInput = {
      domain: 'brand.test',
      mx: mx.promise,
      spfLookups: Promise.resolve(3),
      dkimKeys: Promise.resolve([]),
    };

    const run = runReputation(pending, context({ resolver, config: { dnsbl: { ipZones: ['zen.example'], domainZones: [] } } }));
    for (let i = 0; i < 5; i += 1) await tick();
    const askedBeforeMx = [...resolver.asked];
    mx.resolve([{ host: 'mx.brand.test', preference: 10, ipv4: ['192.0.2.1'], ipv6: [] }]);
    const result = await run;

    expect(askedBeforeMx).toContain('TXT default._bimi.brand.test');
    expect(askedBeforeMx.some((question) => question.includes('_25._tcp.mx.brand.test'))).toBe(false);
    expect(resolver.asked).toContain('TLSA _25._tcp.mx.brand.test');
    expect(resolver.asked).toContain('A 1.2.0.192.zen.example');
    expect(result.data).toHaveProperty('dane');
  });

  it("turns a posture failure behind a pending field into that check's error only", async () => {
    const failing = Promise.reject(new Error('posture bug'));
    failing.catch(() => undefined);
    const pending: PendingReputationInput = {
      domain: 'brand.test',
      mx: Promise.resolve([]),
      spfLookups: failing,
      dkimKeys: Promise.resolve([]),
    };

    const result = await runReputation(pending, context());

    expect(result.status).toBe('error');
    expect(result.errors).toEqual([
      expect.objectContaining({ check: 'spf_lookup_limit', message: expect.stringContaining('posture bug') }),
    ]);
  });
});
