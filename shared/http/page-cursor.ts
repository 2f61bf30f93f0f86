import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../domain/errors.ts';

/** What a cursor is bound to: one listing of one tenant (the key is the tenant's) with its filters. */
export interface CursorBinding {
  listing: string;
  filters: Record<string, string | boolean | undefined>;
}

const invalid = () =>
  new ValidationError('the cursor is not valid', [{ field: 'cursor', message: 'is not a cursor of this listing and filters' }]);

function macOf(key: string, binding: CursorBinding, inner: string): Buffer {
  const filters = Object.entries(binding.filters)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHmac('sha256', key)
    .update(JSON.stringify([binding.listing, filters, inner]))
    .digest();
}

/**
 * Listing cursors as the API hands them out: the store's own cursor plus an HMAC over it, the
 * listing and its filters, keyed by the tenant's cursor key (derived from the session key by the
 * authorizer). A cursor forged, edited, or replayed on another listing, other filters or another
 * tenant is a 400 on `cursor` before the store sees it.
 *
 * `keys` holds one cursor key per session key the authorizer accepts, the current one first: a
 * cursor is sealed with the first and opens under any, so a cursor handed out just before a
 * session-key rotation still opens while the previous key is accepted (docs/auth.md).
 */
export function pageCursors(keys: readonly string[], binding: CursorBinding) {
  if (keys.length === 0 || keys.some((key) => key === '')) throw new Error('no cursor key: listings are authenticated routes');
  return {
    seal(inner: string | null): string | null {
      if (inner === null) return null;
      return `${Buffer.from(inner).toString('base64url')}.${macOf(keys[0], binding, inner).toString('base64url')}`;
    },
    open(cursor: string | undefined): string | undefined {
      if (cursor === undefined) return undefined;
      const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(cursor);
      if (!match) throw invalid();
      const inner = Buffer.from(match[1], 'base64url').toString('utf8');
      const given = Buffer.from(match[2], 'base64url');
      const opens = keys.some((key) => {
        const expected = macOf(key, binding, inner);
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
      if (!opens) throw invalid();
      return inner;
    },
  };
}
