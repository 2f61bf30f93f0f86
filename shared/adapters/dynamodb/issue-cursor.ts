import { ISSUE_SORT_KEY } from '../../domain/issue.ts';
import { cursorBody, invalidCursor } from './cursor.ts';

interface IssueCursorBody {
  v: 1;
  /** The tenant the page belongs to: a cursor is refused in any other tenant. */
  t: string;
  /** The position reached: an issue sort key (issueSortKey); the next page starts after it. */
  p: string;
}

/**
 * An issue listing's cursor is a position in the listing order, not a DynamoDB key: the listing
 * may read several index partitions, and one sort key is a valid start in each of them.
 */
export function encodeIssueCursor(tenant: string, position: string): string {
  const body: IssueCursorBody = { v: 1, t: tenant, p: position };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The position of a cursor of `tenant`; ValidationError for anything else. */
export function decodeIssueCursor(cursor: string, tenant: string): string {
  const { v, t, p } = cursorBody<IssueCursorBody>(cursor);
  if (v !== 1 || t !== tenant || typeof p !== 'string' || !ISSUE_SORT_KEY.test(p)) throw invalidCursor();
  return p;
}
