import { parse as parseDomain } from 'tldts';
import { normaliseDomain } from '../../lib/domain-name.ts';
import type { TargetResult } from './targets.ts';

// The m365 rule alone needs the public suffix list (tldts, about 120 KiB bundled, and its trie is
// derived when the module loads), so it has a module of its own: the services import it when they
// first check an m365 target (scan-targets.ts, targetRuleFor), the UI's prompt imports it outright.
// tldts-icann would be smaller but never says whether a rule matched (`isIcann` is not set), so it
// could not refuse `example.test`.

/** An apex (registrable) domain per the public suffix list: `example.com`, not `mail.example.com`. */
export function apexDomain(input: string): TargetResult {
  const host = normaliseDomain(input);
  if (host === null) return { ok: false, message: 'must be a domain name such as example.com' };
  const parsed = parseDomain(host, { allowPrivateDomains: false });
  if (!parsed.isIcann || parsed.domain === null) return { ok: false, message: 'must be a domain under a public suffix' };
  if (parsed.domain !== host) return { ok: false, message: `must be the apex domain (${parsed.domain}), not a subdomain` };
  return { ok: true, value: host };
}
