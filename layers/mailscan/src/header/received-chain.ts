import { isIP } from 'node:net';
import { parseReceived } from 'mailauth/lib/parse-received.js';
import type { HeaderLimits } from '../../../../lib/mail-artifacts/header-limits.ts';
import type { RawHeaderField } from '../../../../lib/mail-artifacts/message-header.ts';

/** One Received hop, oldest first (hop 1 is where the message entered the first relay). */
export interface ReceivedHop {
  hop: number;
  from: string | null;
  /** The connecting address the receiving relay recorded, from the from-clause comment. */
  from_ip: string | null;
  by: string | null;
  with: string | null;
  id: string | null;
  timestamp: string | null;
  /** The date as written, when it did not parse. */
  raw_date: string | null;
}

export type ReceivedAnomalyKind = 'backwards_time' | 'loopback_helo' | 'private_helo' | 'long_delay' | 'missing_date' | 'unparseable_date';

export interface ReceivedAnomaly {
  kind: ReceivedAnomalyKind;
  severity: 'high' | 'medium';
  hop: number;
  detail: string;
}

/** Parses the Received fields (top of the message = newest) into hops, oldest first. */
export function receivedHops(fields: readonly RawHeaderField[], limits: HeaderLimits): ReceivedHop[] {
  const received = fields
    .filter((field) => field.key === 'received')
    .slice(0, limits.maxReceived)
    .reverse();
  return received.map((field, index) => {
    const parsed = parseReceived(field.line) || { full: field.line };
    const fromComment = parsed.from?.comment ?? '';
    const ip = /\[(?:IPv6:)?([0-9a-f:.]+)\]/i.exec(fromComment)?.[1] ?? null;
    const rawDate = parsed.timestamp?.trim() || null;
    const time = rawDate === null ? Number.NaN : Date.parse(rawDate);
    return {
      hop: index + 1,
      from: parsed.from?.value || null,
      from_ip: ip !== null && isIP(ip) !== 0 ? ip.toLowerCase() : null,
      by: parsed.by?.value || null,
      with: parsed.with?.value || null,
      id: parsed.id?.value || null,
      timestamp: Number.isNaN(time) ? null : new Date(time).toISOString(),
      raw_date: Number.isNaN(time) ? rawDate : null,
    };
  });
}

/**
 * The anomalies of issue 9: time running backwards (beyond clock skew) or a loopback HELO on a
 * public hop (high); a private HELO on a public hop, a hop over 24 h after the previous one, a
 * missing or unparseable date (medium). A hop is public when the relay recorded a public
 * connecting address; local submission (localhost from 127.0.0.1) is normal.
 */
export function receivedAnomalies(hops: readonly ReceivedHop[], limits: HeaderLimits): ReceivedAnomaly[] {
  const anomalies: ReceivedAnomaly[] = [];
  let previous: { hop: number; time: number } | null = null;
  for (const hop of hops) {
    if (hop.timestamp === null) {
      anomalies.push(
        hop.raw_date === null
          ? {
              kind: 'missing_date',
              severity: 'medium',
              hop: hop.hop,
              detail: `Received hop ${hop.hop} (by ${hop.by ?? 'unknown'}) has no date.`,
            }
          : {
              kind: 'unparseable_date',
              severity: 'medium',
              hop: hop.hop,
              detail: `Received hop ${hop.hop} (by ${hop.by ?? 'unknown'}) has an unparseable date "${hop.raw_date.slice(0, 80)}".`,
            },
      );
    } else {
      const time = Date.parse(hop.timestamp);
      if (previous !== null && time < previous.time - limits.clockSkewMs) {
        anomalies.push({
          kind: 'backwards_time',
          severity: 'high',
          hop: hop.hop,
          detail: `Received hop ${hop.hop} (by ${hop.by ?? 'unknown'}) is dated ${Math.round((previous.time - time) / 1000)} s before hop ${previous.hop}: time runs backwards.`,
        });
      } else if (previous !== null && time - previous.time > limits.maxHopDelayMs) {
        anomalies.push({
          kind: 'long_delay',
          severity: 'medium',
          hop: hop.hop,
          detail: `Received hop ${hop.hop} (by ${hop.by ?? 'unknown'}) came ${((time - previous.time) / 3_600_000).toFixed(1)} h after hop ${previous.hop}.`,
        });
      }
      previous = { hop: hop.hop, time };
    }
    const helo = hop.from?.replace(/^\[(?:ipv6:)?|\]$/gi, '').toLowerCase() ?? null;
    if (helo !== null && hop.from_ip !== null && addressClass(hop.from_ip) === 'public') {
      const heloClass =
        helo === 'localhost' || helo === 'localhost.localdomain' ? 'loopback' : isIP(helo) !== 0 ? addressClass(helo) : 'public';
      if (heloClass === 'loopback')
        anomalies.push({
          kind: 'loopback_helo',
          severity: 'high',
          hop: hop.hop,
          detail: `Received hop ${hop.hop}: a public client ${hop.from_ip} greeted as ${hop.from}, a loopback name.`,
        });
      else if (heloClass === 'private')
        anomalies.push({
          kind: 'private_helo',
          severity: 'medium',
          hop: hop.hop,
          detail: `Received hop ${hop.hop}: a public client ${hop.from_ip} greeted as ${hop.from}, a private address.`,
        });
    }
  }
  return anomalies;
}

/** loopback, private (RFC 1918, CGNAT, link-local, ULA) or public. */
export function addressClass(ip: string): 'loopback' | 'private' | 'public' {
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number);
    if (a === 127) return 'loopback';
    if (
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      a === 0
    )
      return 'private';
    return 'public';
  }
  const lower = ip.toLowerCase();
  if (lower === '::1') return 'loopback';
  if (/^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || lower === '::') return 'private';
  return 'public';
}
