import { getServers } from 'node:dns';
import { isIP } from 'node:net';

/** A DNS server to send raw queries to. */
export interface Nameserver {
  host: string;
  port: number;
}

/**
 * Parses `HOST[:PORT]`, `[V6]:PORT` or a bare IPv6 address. Only IP literals are accepted: resolving
 * a nameserver's own name would need a resolver we do not have yet.
 */
export function parseNameserver(text: string): Nameserver | null {
  const value = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  if (bracketed) return withPort(bracketed[1], bracketed[2], 6);
  // Only a value with two colons can be a bare IPv6 address (HOST:PORT has one): isIP's IPv6
  // pattern costs ~7 ms the first time it runs, which a scan's start-up need not pay for an IPv4.
  if (value.indexOf(':') !== value.lastIndexOf(':') && isIP(value) === 6) return { host: value, port: 53 };
  const [host, port, ...rest] = value.split(':');
  if (rest.length > 0 || host === undefined) return null;
  return withPort(host, port, 4);
}

function withPort(host: string, port: string | undefined, family: 4 | 6): Nameserver | null {
  if (isIP(host) !== family) return null;
  const number = port === undefined ? 53 : Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65535) return null;
  return { host, port: number };
}

/** Comma- or list-separated nameservers; null when any entry is malformed (a usage error). */
export function parseNameservers(entries: readonly string[]): Nameserver[] | null {
  const parsed = entries
    .flatMap((entry) => entry.split(','))
    .filter((part) => part.trim() !== '')
    .map(parseNameserver);
  if (parsed.length === 0 || parsed.some((server) => server === null)) return null;
  return parsed as Nameserver[];
}

/** The servers the operating system's stub resolver uses (resolv.conf on Linux). */
export function systemNameservers(): Nameserver[] {
  return getServers()
    .map(parseNameserver)
    .filter((server): server is Nameserver => server !== null);
}
