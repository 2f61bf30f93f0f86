import { createHash } from 'node:crypto';
import { targetKey } from '../../domain/issue.ts';

/**
 * A target as an index partition key: the SHA-256 of its `targetKey` (any case, IDN or punycode
 * alike), 32 hex characters, so a 2 KB URL makes a short key. Issues and scans by target use it.
 */
export function targetDigest(target: string): string {
  return createHash('sha256').update(targetKey(target)).digest('hex').slice(0, 32);
}
