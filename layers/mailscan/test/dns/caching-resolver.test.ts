import { describe, expect, it } from 'vitest';
import { makeCachingResolver } from '../../../../lib/dns/caching-resolver.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';

describe('caching resolver', () => {
  it('sends one query for concurrent askers of the same question', async () => {
    const inner = makeFakeResolver({ 'A a.test': { status: 'found', records: ['192.0.2.1'] } });
    inner.hold = true;
    const resolver = makeCachingResolver(inner);

    const first = resolver.query('a.test', 'A');
    const second = resolver.query('A.TEST.', 'A');
    inner.release();

    expect(await first).toEqual(await second);
    expect(inner.asked).toEqual(['A a.test']);
  });

  it('keeps an unknown answer for the rest of the scan', async () => {
    const inner = makeFakeResolver({ 'TXT a.test': { status: 'unknown', reason: 'timeout', message: 'no answer' } });
    const resolver = makeCachingResolver(inner);

    await resolver.query('a.test', 'TXT');
    const again = await resolver.query('a.test', 'TXT');

    expect(again.status).toBe('unknown');
    expect(inner.asked).toHaveLength(1);
  });

  it('asks separately for each record type', async () => {
    const inner = makeFakeResolver({});
    const resolver = makeCachingResolver(inner);

    await Promise.all([resolver.query('a.test', 'A'), resolver.query('a.test', 'AAAA')]);

    expect(inner.asked).toEqual(['A a.test', 'AAAA a.test']);
  });
});
