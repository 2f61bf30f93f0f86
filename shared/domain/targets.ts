import { isIP } from 'node:net';
// Every hostname in a target goes through the scanner's normaliser (IDN → punycode, lowercase, no
// trailing dot, at least two labels, no IP address), so the API stores exactly the name mailscan
// scans: one rule for `target`, each `targets` entry and the CLI's argument.
import { normaliseDomain } from '../../lib/domain-name.ts';

/** A target check: the normalised target, or a user-facing reason it is not acceptable. */
export type TargetResult = { ok: true; value: string } | { ok: false; message: string };

const MAX_TARGET_LENGTH = 2048;

/**
 * A domain name, apex or subdomain, in any TLD (DESIGN §4): mail is often sent from
 * `news.example.com`, and private deployments scan their own zones (`.test`, `.internal`).
 */
export function domainName(input: string): TargetResult {
  const host = normaliseDomain(input);
  return host === null ? { ok: false, message: 'must be a domain name such as example.com' } : { ok: true, value: host };
}

/**
 * `localhost` is one label, which normaliseDomain refuses; it is read here so the target policy
 * can say why it is refused (this machine), or admit it under ALLOW_LOOPBACK_TARGETS.
 */
const isLocalhost = (host: string): boolean => host.toLowerCase() === 'localhost';

export function hostnameWithOptionalPort(input: string): TargetResult {
  const value = input.trim();
  // An IP literal too (`192.0.2.1:8443`, `[2001:db8::1]:443`, a bare IPv6 address): servers are scanned by address as well.
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  if (bracketed || isIP(value) === 6) {
    const address = bracketed ? bracketed[1] : value;
    if (isIP(address) !== 6) return { ok: false, message: 'must be a hostname, optionally with :port' };
    const port = bracketed?.[2] === undefined ? undefined : Number(bracketed[2]);
    if (port !== undefined && (port < 1 || port > 65535)) return { ok: false, message: 'port must be 1-65535' };
    return { ok: true, value: port === undefined ? `[${address.toLowerCase()}]` : `[${address.toLowerCase()}]:${port}` };
  }
  const match = /^(.+?)(?::(\d{1,5}))?$/.exec(value);
  const host = match?.[1] ? (isIP(match[1]) === 4 || isLocalhost(match[1]) ? match[1].toLowerCase() : normaliseDomain(match[1])) : null;
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (host === null) return { ok: false, message: 'must be a hostname, optionally with :port' };
  if (port !== undefined && (port < 1 || port > 65535)) return { ok: false, message: 'port must be 1-65535' };
  return { ok: true, value: port === undefined ? host : `${host}:${port}` };
}

export function httpUrl(input: string): TargetResult {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { ok: false, message: 'must be an http(s) URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: 'must be an http(s) URL' };
  if (url.username || url.password) return { ok: false, message: 'must not carry credentials' };
  // `localhost` is a host name here; the target policy decides whether loopback may be scanned.
  if (!isIP(url.hostname.replace(/^\[|\]$/g, '')) && !isLocalhost(url.hostname) && normaliseDomain(url.hostname) === null) {
    return { ok: false, message: 'must have a valid host' };
  }
  return { ok: true, value: url.toString() };
}

/** A host, host:port or an http(s) URL (medical, DESIGN §22: DICOM and MLLP by host and port, FHIR and DICOMweb by URL). */
export function hostPortOrHttpUrl(input: string): TargetResult {
  return /^https?:\/\//i.test(input.trim()) ? httpUrl(input) : hostnameWithOptionalPort(input);
}

/**
 * `https://host/org/repo(.git)`, a repository at the host's top (`https://git.example.com/repo.git`,
 * as a self-hosted git server or `git http-backend` serves it), or the scp-like `git@host:org/repo.git`.
 */
export function repositoryUrl(input: string): TargetResult {
  const value = input.trim();
  const scp = /^[a-z0-9_.-]+@([a-z0-9.-]+):[\w.~/-]+$/i.exec(value);
  if (scp) {
    return normaliseDomain(scp[1]) === null ? { ok: false, message: 'must be a repository URL' } : { ok: true, value };
  }
  const url = httpUrl(value);
  if (!url.ok || !/^\/[^/]+/.test(new URL(url.value).pathname)) {
    return { ok: false, message: 'must be a repository URL such as https://github.com/org/repo' };
  }
  // http: is refused by the target policy unless it points at a local test server (network-policy.ts).
  return url;
}

export function credentialAlias(input: string): TargetResult {
  const value = input.trim();
  return /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/.test(value)
    ? { ok: true, value }
    : { ok: false, message: 'must be a credential alias: 1-128 of letters, digits and ._:/@-' };
}

/** An IPv4/IPv6 address, a CIDR block, or a hostname. */
export function hostOrNetwork(input: string): TargetResult {
  const value = input.trim();
  const [address, prefix, extra] = value.split('/');
  const family = isIP(address ?? '');
  if (family !== 0) {
    if (extra !== undefined) return { ok: false, message: 'must be an IP, a CIDR block or a hostname' };
    if (prefix === undefined) return { ok: true, value: address.toLowerCase() };
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
    if (bits < 0 || bits > (family === 4 ? 32 : 128)) return { ok: false, message: 'CIDR prefix length is out of range' };
    return { ok: true, value: `${address.toLowerCase()}/${bits}` };
  }
  const host = isLocalhost(value) ? 'localhost' : normaliseDomain(value);
  return host === null ? { ok: false, message: 'must be an IP, a CIDR block or a hostname' } : { ok: true, value: host };
}

export function boundedTarget(check: (input: string) => TargetResult): (input: string) => TargetResult {
  return (input) =>
    input.length > MAX_TARGET_LENGTH ? { ok: false, message: `must be at most ${MAX_TARGET_LENGTH} characters` } : check(input);
}
