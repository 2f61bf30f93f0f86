import { describe, expect, it } from 'vitest';
import { makeCachingResolver } from '../../../../lib/dns/caching-resolver.ts';
import { makeCountingResolver } from '../../src/dns/counting-resolver.ts';
import { branch, dependency, derived, inParallel, trackDepth } from '../../src/dns/dependency-depth.ts';
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

  it("counts the answers behind another branch's result as a dependency of the flow that awaits it", async () => {
    const { resolver, count } = makeCountingResolver(makeFakeResolver({}));

    await trackDepth(async () => {
      const hosts = derived(
        branch(async () => {
          await resolver.query('mail.test', 'MX');
          await resolver.query('mx1.mail.test', 'A');
          return ['192.0.2.1'];
        }),
        (addresses) => addresses.length,
      );
      await inParallel(['waits', 'does-not'], async (label) => {
        if (label === 'waits') await dependency(hosts);
        await resolver.query(`${label}.list.test`, 'A');
      });
    });

    expect(count.log.find((entry) => entry.name === 'waits.list.test')?.depth).toBe(3);
    expect(count.log.find((entry) => entry.name === 'does-not.list.test')?.depth).toBe(1);
    expect(count.maxDepth).toBe(3);
  });
});
