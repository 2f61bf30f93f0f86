import { describe, expect, it } from 'vitest';
import { makeCachingResolver } from '../../../layers/mailscan/src/dns/caching-resolver.ts';
import { makeCountingResolver } from '../../../layers/mailscan/src/dns/counting-resolver.ts';
import { inParallel, trackDepth } from '../../../layers/mailscan/src/dns/dependency-depth.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';

describe('counting resolver', () => {
  it('counts a chain of dependent queries as its length', async () => {
    const { resolver, count } = makeCountingResolver(makeFakeResolver({}));

    const { record } = await trackDepth(async () => {
      await resolver.query('one.test', 'TXT');
      await resolver.query('two.test', 'TXT');
      await resolver.query('three.test', 'TXT');
    });

    expect(count.queries).toBe(3);
    expect(count.maxDepth).toBe(3);
    expect(record.depth).toBe(3);
  });

  it('does not count concurrent branches as dependent on each other', async () => {
    const { resolver, count } = makeCountingResolver(makeFakeResolver({}));

    await trackDepth(async () => {
      await resolver.query('root.test', 'MX');
      await inParallel(['a', 'b', 'c'], async (label) => {
        await resolver.query(`${label}.test`, 'A');
        await resolver.query(`${label}.deeper.test`, 'A');
      });
      await resolver.query('after.test', 'TXT');
    });

    expect(count.queries).toBe(8);
    expect(count.maxDepth).toBe(4);
    expect(count.log.find((entry) => entry.name === 'after.test')?.depth).toBe(4);
  });

  it('counts a repeated question once, at the depth it was first asked', async () => {
    const { resolver, count } = makeCountingResolver(makeCachingResolver(makeFakeResolver({})));

    await trackDepth(async () => {
      await inParallel([1, 2], async (branchNumber) => {
        if (branchNumber === 2) await resolver.query('first.test', 'A');
        await resolver.query('shared.test', 'A');
      });
    });

    expect(count.queries).toBe(2);
    expect(count.log).toEqual([
      { name: 'shared.test', type: 'A', depth: 1 },
      { name: 'first.test', type: 'A', depth: 1 },
    ]);
  });
});
