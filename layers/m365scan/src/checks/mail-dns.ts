/**
 * The mail side of DNS as Microsoft's guidance for Exchange Online reads it (DESIGN §19): is the MX
 * Exchange Online Protection, does SPF include `spf.protection.outlook.com` (directly or through
 * its includes, as an SPF evaluation would reach it), and are the DKIM selector CNAMEs published
 * with a key behind them.
 */
import type { MxRecord, Resolver } from '../../../../lib/dns/resolver.ts';

export const EOP_SPF = 'spf.protection.outlook.com';
const EOP_MX = /\.mail\.protection\.outlook\.(com|de|cn)$|\.mail\.protection\.partner\.outlook\.cn$/;
/** RFC 7208 §4.6.4: an evaluation stops after 10 DNS-querying terms; so does this search. */
const MAX_SPF_LOOKUPS = 10;

export type Mx = { kind: 'found'; hosts: string[] } | { kind: 'none' } | { kind: 'error'; message: string };

export async function readMx(resolver: Resolver, domain: string): Promise<Mx> {
  const answer = await resolver.query(domain, 'MX');
  if (answer.status === 'unknown') return { kind: 'error', message: `MX of ${domain}: ${answer.message}` };
  if (answer.status === 'absent') return { kind: 'none' };
  const hosts = [...answer.records]
    .sort((a: MxRecord, b: MxRecord) => a.preference - b.preference)
    .map((record) => record.exchange.replace(/\.$/, '').toLowerCase())
    .filter((host) => host !== '');
  return hosts.length === 0 ? { kind: 'none' } : { kind: 'found', hosts };
}

export const isEopHost = (host: string): boolean => EOP_MX.test(host);

export type SpfRecord = { kind: 'found'; record: string } | { kind: 'none' } | { kind: 'error'; message: string };

/** The domain's one `v=spf1` TXT record; several are an error, as RFC 7208 §4.5 makes them. */
export async function readSpf(resolver: Resolver, domain: string): Promise<SpfRecord> {
  const answer = await resolver.query(domain, 'TXT');
  if (answer.status === 'unknown') return { kind: 'error', message: `TXT of ${domain}: ${answer.message}` };
  if (answer.status === 'absent') return { kind: 'none' };
  const records = answer.records.filter((text) => /^v=spf1(\s|$)/i.test(text.trim()));
  if (records.length > 1) return { kind: 'error', message: `${domain} publishes ${records.length} SPF records (permerror)` };
  return records.length === 0 ? { kind: 'none' } : { kind: 'found', record: records[0].trim() };
}

/**
 * Whether the SPF of `domain` reaches an `include:` of EOP's record, following includes and a
 * redirect as far as an evaluation may (10 lookups). `unknown` carries why it cannot tell.
 */
export async function spfIncludesEop(
  resolver: Resolver,
  domain: string,
  record: string,
): Promise<{ kind: 'yes'; via: string[] } | { kind: 'no'; record: string } | { kind: 'unknown'; message: string }> {
  let lookups = 0;
  const seen = new Set<string>([domain]);
  async function walk(text: string, path: string[]): Promise<string[] | null | string> {
    const terms = text.split(/\s+/).slice(1);
    let redirect: string | undefined;
    for (const term of terms) {
      const include = /^[+~?-]?include:(.+)$/i.exec(term);
      const redirected = /^redirect=(.+)$/i.exec(term);
      if (redirected) redirect = redirected[1].toLowerCase().replace(/\.$/, '');
      if (!include) continue;
      const target = include[1].toLowerCase().replace(/\.$/, '');
      if (target === EOP_SPF) return [...path, target];
      if (target.includes('%') || seen.has(target)) continue;
      seen.add(target);
      if (++lookups > MAX_SPF_LOOKUPS) return `more than ${MAX_SPF_LOOKUPS} SPF lookups before EOP's include was found`;
      const child = await readSpf(resolver, target);
      if (child.kind === 'error') return child.message;
      if (child.kind === 'none') continue;
      const found = await walk(child.record, [...path, target]);
      if (found !== null) return found;
    }
    if (redirect && !terms.some((term) => /^[+~?-]?all$/i.test(term))) {
      if (redirect === EOP_SPF) return [...path, redirect];
      if (seen.has(redirect)) return null;
      seen.add(redirect);
      if (++lookups > MAX_SPF_LOOKUPS) return `more than ${MAX_SPF_LOOKUPS} SPF lookups before EOP's include was found`;
      const child = await readSpf(resolver, redirect);
      if (child.kind === 'error') return child.message;
      if (child.kind === 'none') return null;
      return walk(child.record, [...path, redirect]);
    }
    return null;
  }
  const result = await walk(record, []);
  if (typeof result === 'string') return { kind: 'unknown', message: result };
  return result === null ? { kind: 'no', record } : { kind: 'yes', via: result };
}

export type DkimSelector =
  | { selector: string; kind: 'enabled'; target: string | null }
  | { selector: string; kind: 'no_cname' }
  | { selector: string; kind: 'no_key'; target: string }
  | { selector: string; kind: 'error'; message: string };

/** One selector: its CNAME (Microsoft 365 publishes DKIM keys behind CNAMEs) and the key at the CNAME's end. */
export async function readDkimSelector(resolver: Resolver, domain: string, selector: string): Promise<DkimSelector> {
  const name = `${selector}._domainkey.${domain}`;
  const cname = await resolver.query(name, 'CNAME');
  if (cname.status === 'unknown') return { selector, kind: 'error', message: `CNAME of ${name}: ${cname.message}` };
  if (cname.status === 'absent') return { selector, kind: 'no_cname' };
  const target = cname.records[0].replace(/\.$/, '').toLowerCase();
  const txt = await resolver.query(name, 'TXT');
  if (txt.status === 'unknown') return { selector, kind: 'error', message: `TXT at ${target}: ${txt.message}` };
  const hasKey = txt.status === 'found' && txt.records.some((text) => /(^|;)\s*p=[A-Za-z0-9+/=\s]{16,}/.test(text));
  return hasKey ? { selector, kind: 'enabled', target } : { selector, kind: 'no_key', target };
}

/** The tenant's initial domain, when a selector's CNAME names it (`…._domainkey.contoso.onmicrosoft.com`). */
export function initialDomainOf(selectors: readonly DkimSelector[]): string | null {
  for (const selector of selectors) {
    const target = 'target' in selector ? selector.target : null;
    const match = target ? /\._domainkey\.([a-z0-9-]+\.onmicrosoft\.com)$/.exec(target) : null;
    if (match) return match[1];
  }
  return null;
}
