/**
 * The vdi target (DESIGN §21): an IP, a host name, or `host:port` (an IPv6 address in brackets when
 * it has a port). A port in the target means that one port is probed.
 */
import { isIP } from 'node:net';
import { parseTlsTarget } from '../../engine-kit/src/tls/target.ts';

export interface VdiTarget {
  host: string;
  /** The target's own port, when it names one. */
  port?: number;
}

export function parseVdiTarget(raw: string): { ok: true; target: VdiTarget } | { ok: false; message: string } {
  const text = raw.trim();
  const parsed = parseTlsTarget(text);
  if (!parsed.ok) return parsed;
  const hasPort = /^\[[^\]]+\]:\d+$/.test(text) || (isIP(text) !== 6 && !text.startsWith('[') && text.includes(':'));
  return { ok: true, target: { host: parsed.target.host, ...(hasPort ? { port: parsed.target.port } : {}) } };
}

export function formatVdiTarget(target: VdiTarget): string {
  const host = isIP(target.host) === 6 && target.port !== undefined ? `[${target.host}]` : target.host;
  return target.port === undefined ? host : `${host}:${target.port}`;
}
