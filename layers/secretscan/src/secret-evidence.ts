import { createHash } from 'node:crypto';

/**
 * What a report may say about a secret (DESIGN §13): its first four characters, its length and
 * its SHA-256. The value itself never leaves the scan; the hash is the finding's fingerprint key,
 * so one secret is one issue wherever it appears, and the key users put in .secretscanignore.
 */
export interface SecretDigest {
  sha256: string;
  masked: string;
  length: number;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function digestSecret(value: string): SecretDigest {
  const chars = [...value];
  return { sha256: sha256Hex(value), masked: `${chars.slice(0, 4).join('')}${'*'.repeat(8)}`, length: chars.length };
}
