/**
 * On the same NSD zones, m365scan's SPF and DKIM facts agree with mailscan's (DESIGN §19): the
 * built mailscan executable scans each domain through the same NSD, and its SPF record, whether
 * its expanded SPF tree reaches EOP's include, and which selectors publish a key are compared with
 * what m365scan's checks read. (mailscan reads no MTA-STS, so there is nothing of it to compare.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCachingResolver } from '../../../lib/dns/caching-resolver.ts';
import { makeRawResolver } from '../../../lib/dns/raw-resolver.ts';
import { scan as mailscan } from '../../mailscan/test/helpers/cli.ts';
import { EOP_SPF, readDkimSelector, readSpf, spfIncludesEop } from '../src/checks/mail-dns.ts';
import { ZONE_DIR } from './helpers/world.ts';
import { startNsd, type RunningNsd } from './helpers/nsd.ts';

const DOMAINS = ['contoso.test', 'fabrikam.test', 'dangling.test', 'plain.test'];
const SELECTORS = ['selector1', 'selector2'];

/** Whether an expanded SPF tree of mailscan's report holds `include:<EOP>` anywhere. */
function treeIncludes(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  const terms = (node as { terms?: { term: string; child?: unknown }[] }).terms ?? [];
  return terms.some((term) => term.term.toLowerCase().replace(/^[+~?-]/, '') === `include:${EOP_SPF}` || treeIncludes(term.child));
}

describe("m365scan's SPF and DKIM facts against mailscan's on the same zones", () => {
  let nsd: RunningNsd;
  beforeAll(async () => {
    nsd = await startNsd(ZONE_DIR, { HTTPS_ADDRESS: '127.0.38.5' });
  }, 30_000);
  afterAll(async () => nsd?.stop());

  for (const domain of DOMAINS) {
    it(`agrees on ${domain}`, async () => {
      const resolver = makeCachingResolver(
        makeRawResolver({ servers: [{ host: '127.0.0.1', port: nsd.port }], timeoutMs: 1000, attempts: 2 }),
      );
      const { report } = await mailscan(
        domain,
        nsd.address,
        SELECTORS.flatMap((selector) => ['--dkim-selector', selector]),
      );
      const spf = report.surfaces.posture.spf;
      const ours = await readSpf(resolver, domain);
      expect(ours.kind === 'found' ? ours.record : null).toBe(spf.record);
      if (ours.kind === 'found') {
        const included = await spfIncludesEop(resolver, domain, ours.record);
        expect(included.kind === 'yes', 'EOP include').toBe(treeIncludes(spf.tree));
      }
      const keys = new Set(report.surfaces.posture.dkim.keys.filter((key) => !key.revoked).map((key) => key.selector));
      const enabled = (await Promise.all(SELECTORS.map((selector) => readDkimSelector(resolver, domain, selector))))
        .filter((selector) => selector.kind === 'enabled')
        .map((selector) => selector.selector);
      expect(enabled.sort()).toEqual([...keys].sort());
    }, 60_000);
  }

  it('sees each fact both ways across the zones (so agreement is not agreement on nothing)', async () => {
    const resolver = makeCachingResolver(
      makeRawResolver({ servers: [{ host: '127.0.0.1', port: nsd.port }], timeoutMs: 1000, attempts: 2 }),
    );
    const eop = await Promise.all(
      DOMAINS.map(async (domain) => {
        const spf = await readSpf(resolver, domain);
        return spf.kind === 'found' ? (await spfIncludesEop(resolver, domain, spf.record)).kind : 'none';
      }),
    );
    expect(eop).toEqual(['yes', 'no', 'no', 'no']);
    const dkim = await Promise.all(DOMAINS.map((domain) => readDkimSelector(resolver, domain, 'selector1')));
    expect(dkim.map((selector) => selector.kind)).toEqual(['enabled', 'no_key', 'no_cname', 'no_cname']);
  });
});
