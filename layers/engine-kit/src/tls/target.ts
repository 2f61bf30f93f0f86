/**
 * The ssl target: `host[:port]` (DESIGN §12), an IPv6 address in brackets when it has a port.
 * The port defaults to 443.
 */
import { isIP } from 'node:net';

export interface TlsTarget {
  host: string;
  port: number;
}

const HOSTNAME = /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

export function parseTlsTarget(raw: string): { ok: true; target: TlsTarget } | { ok: false; message: string } {
  const text = raw.trim();
  let host = text;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1];
    portText = bracketed[2];
    if (isIP(host) !== 6) return { ok: false, message: `${raw} is not an IPv6 address in brackets` };
  } else if (isIP(text) !== 6) {
    const at = text.lastIndexOf(':');
    if (at >= 0) {
      host = text.slice(0, at);
      portText = text.slice(at + 1);
    }
  }
  const port = portText === undefined ? 443 : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || (portText !== undefined && !/^\d+$/.test(portText))) {
    return { ok: false, message: `${raw}: the port must be 1-65535` };
  }
  if (isIP(host) === 0 && !HOSTNAME.test(host)) return { ok: false, message: `${raw} is not host[:port]` };
  return { ok: true, target: { host: host.toLowerCase().replace(/\.$/, ''), port } };
}

export function formatTlsTarget(target: TlsTarget): string {
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  return target.port === 443 ? host : `${host}:${target.port}`;
}
