/**
 * What a certificate says about its right to issue others (RFC 5280 §4.2.1.3 keyUsage, §4.2.1.9
 * basicConstraints), read from its DER with a minimal walker: Node's X509Certificate exposes
 * neither the path length nor the key usage bits. Judged as OpenSSL's X509_check_ca does, so a
 * chain tlsscan trusts is one `openssl verify` trusts.
 */
import type { X509Certificate } from 'node:crypto';

export interface CaConstraints {
  /** The certificate is X.509 v1 (no extensions at all). */
  v1: boolean;
  /** basicConstraints, when present. */
  basic?: { ca: boolean; pathLen?: number };
  /** keyUsage, when present: whether keyCertSign is set. */
  keyCertSign?: boolean;
}

interface Tlv {
  tag: number;
  start: number;
  end: number;
}

function tlv(der: Buffer, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new Error('truncated DER');
  const tag = der[at];
  let length = der[at + 1];
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || start + bytes > limit) throw new Error('bad DER length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i];
    start += bytes;
  }
  if (start + length > limit) throw new Error('truncated DER');
  return { tag, start, end: start + length };
}

function children(der: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end;) {
    const child = tlv(der, at, parent.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

const OID_BASIC_CONSTRAINTS = Buffer.from([0x55, 0x1d, 0x13]);
const OID_KEY_USAGE = Buffer.from([0x55, 0x1d, 0x0f]);

function integer(der: Buffer, node: Tlv): number {
  let value = 0;
  for (let i = node.start; i < node.end; i++) value = value * 256 + der[i];
  return value;
}

export function caConstraints(cert: X509Certificate): CaConstraints {
  const der = cert.raw;
  const certificate = tlv(der, 0, der.length);
  const tbs = children(der, certificate)[0];
  const fields = children(der, tbs);
  const v1 = fields[0]?.tag !== 0xa0;
  const result: CaConstraints = { v1 };
  const extensionsField = fields.find((field) => field.tag === 0xa3);
  if (!extensionsField) return result;
  for (const extension of children(der, children(der, extensionsField)[0])) {
    const parts = children(der, extension);
    const oid = der.subarray(parts[0].start, parts[0].end);
    const value = parts.at(-1)!;
    const inner = tlv(der, value.start, value.end);
    if (oid.equals(OID_BASIC_CONSTRAINTS)) {
      let ca = false;
      let pathLen: number | undefined;
      for (const part of children(der, inner)) {
        if (part.tag === 0x01) ca = part.end > part.start && der[part.start] !== 0;
        if (part.tag === 0x02) pathLen = integer(der, part);
      }
      result.basic = { ca, pathLen };
    } else if (oid.equals(OID_KEY_USAGE)) {
      // A BIT STRING: one byte of unused bits, then bit 0 as 0x80 of the first byte; keyCertSign is bit 5.
      const first = inner.end - inner.start > 1 ? der[inner.start + 1] : 0;
      result.keyCertSign = (first & 0x04) !== 0;
    }
  }
  return result;
}

/**
 * Whether `cert` may issue certificates, as OpenSSL's chain check requires: an intermediate needs
 * basicConstraints CA:TRUE (and keyCertSign when keyUsage is present); a trust anchor may also be
 * a v1 self-signed certificate or one whose keyUsage alone grants keyCertSign.
 */
export function mayIssue(cert: X509Certificate, anchor: boolean, selfSigned: boolean): string | undefined {
  const constraints = caConstraints(cert);
  if (constraints.keyCertSign === false) return 'its keyUsage lacks keyCertSign';
  if (constraints.basic) return constraints.basic.ca ? undefined : 'its basicConstraints say CA:FALSE';
  if (anchor && ((constraints.v1 && selfSigned) || constraints.keyCertSign === true)) return undefined;
  return 'it has no basicConstraints CA:TRUE';
}
