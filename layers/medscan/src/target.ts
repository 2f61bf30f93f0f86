import { isIP } from 'node:net';

/** A medical scan's target (DESIGN §22): a host, a host and one port, or an http(s) URL. */
export type MedTarget =
  { kind: 'host'; host: string } | { kind: 'host_port'; host: string; port: number } | { kind: 'url'; host: string; url: URL };

export class TargetSpecError extends Error {
  override readonly name = 'TargetSpecError';
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)*\.?$/i;

function port(text: string): number {
  const value = Number(text);
  if (!/^\d{1,5}$/.test(text) || value < 1 || value > 65_535) throw new TargetSpecError(`${text} is not a port`);
  return value;
}

function host(text: string): string {
  const bare = text.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(bare) !== 0 || HOSTNAME.test(bare)) return bare;
  throw new TargetSpecError('must be an IP address, a hostname, host:port or an http(s) URL');
}

export function parseMedTarget(raw: string): MedTarget {
  const text = raw.trim();
  if (/^https?:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new TargetSpecError('is not a URL');
    }
    if (url.username || url.password) throw new TargetSpecError('a URL with credentials is not scanned: the scan sends none');
    url.hash = '';
    return { kind: 'url', host: host(url.hostname), url };
  }
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed)
    return bracketed[2] === undefined
      ? { kind: 'host', host: host(bracketed[1]) }
      : { kind: 'host_port', host: host(bracketed[1]), port: port(bracketed[2]) };
  if (isIP(text) === 6) return { kind: 'host', host: text.toLowerCase() };
  const [name, portText, extra] = text.split(':');
  if (extra !== undefined) throw new TargetSpecError('must be an IP address, a hostname, host:port or an http(s) URL');
  return portText === undefined ? { kind: 'host', host: host(name) } : { kind: 'host_port', host: host(name), port: port(portText) };
}

/** The target as the report names it. */
export function targetText(target: MedTarget): string {
  const bracket = (name: string): string => (isIP(name) === 6 ? `[${name}]` : name);
  if (target.kind === 'url') return target.url.href;
  return target.kind === 'host' ? target.host : `${bracket(target.host)}:${target.port}`;
}
