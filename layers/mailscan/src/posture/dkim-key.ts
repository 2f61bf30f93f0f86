import { createPublicKey } from 'node:crypto';

/** What a DKIM key record (RFC 6376 §3.6.1, RFC 8463 for Ed25519) says about its key. */
export interface DkimKeyInfo {
  key_type: string;
  /** RSA modulus length, 256 for Ed25519; null when the key cannot be read. */
  bits: number | null;
  /** The h= tag: the hashes the key may be used with; empty means any. */
  hash_algorithms: string[];
  /** p= is empty: the key was revoked. */
  revoked: boolean;
  testing: boolean;
  /** Why the key cannot be used (unreadable): such a key never counts as DKIM present. */
  problem?: string;
}

/** A TXT record is a DKIM key record if it says v=DKIM1 or carries a p= tag (v is optional). */
export function isDkimRecord(text: string): boolean {
  return /^\s*v\s*=\s*DKIM1\s*(;|$)/i.test(text) || /(^|;)\s*p\s*=/i.test(text);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** OpenSSL's OPENSSL_RSA_MAX_MODULUS_BITS: a larger key cannot verify anything, whatever it claims. */
const MAX_RSA_BITS = 16_384;

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function analyseDkimKey(record: string): DkimKeyInfo {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const match = /^\s*([a-z]+)\s*=\s*([\s\S]*?)\s*$/i.exec(part);
    if (match) tags.set(match[1].toLowerCase(), match[2]);
  }
  const keyType = (tags.get('k') ?? 'rsa').toLowerCase();
  const hashes = (tags.get('h') ?? '')
    .split(':')
    .map((hash) => hash.trim().toLowerCase())
    .filter((hash) => hash !== '');
  const flags = (tags.get('t') ?? '').split(':').map((flag) => flag.trim().toLowerCase());
  const base64 = (tags.get('p') ?? '').replace(/\s+/g, '');
  const info: DkimKeyInfo = {
    key_type: keyType,
    bits: null,
    hash_algorithms: hashes,
    revoked: base64 === '',
    testing: flags.includes('y'),
  };
  if (info.revoked) return info;
  // Buffer.from skips characters that are not base64, so a mangled p= could still decode to a key.
  if (!BASE64.test(base64) || base64.length % 4 !== 0) {
    info.problem = 'p= is not valid base64';
    return info;
  }
  const der = Buffer.from(base64, 'base64');
  try {
    if (keyType === 'rsa') {
      const bits = rsaBits(der);
      if (bits > MAX_RSA_BITS) throw new Error(`a ${bits}-bit modulus: verifiers refuse RSA keys over ${MAX_RSA_BITS} bits`);
      info.bits = bits;
    } else if (keyType === 'ed25519') {
      if (der.length !== 32) throw new Error(`an Ed25519 key is 32 bytes, this one is ${der.length}`);
      createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, der]), format: 'der', type: 'spki' });
      info.bits = 256;
    } else {
      info.problem = `unknown key type k=${keyType}`;
    }
  } catch (error) {
    info.problem = `unreadable ${keyType} key: ${(error as Error).message}`;
  }
  return info;
}

/** p= is normally a SubjectPublicKeyInfo; some signers publish a bare PKCS#1 RSAPublicKey. */
function rsaBits(der: Buffer): number {
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      const key = createPublicKey({ key: der, format: 'der', type });
      if (key.asymmetricKeyType !== 'rsa') throw new Error(`k=rsa but the key is ${key.asymmetricKeyType}`);
      return key.asymmetricKeyDetails?.modulusLength ?? 0;
    } catch (error) {
      if (type === 'pkcs1') throw error;
    }
  }
  throw new Error('unreachable');
}
