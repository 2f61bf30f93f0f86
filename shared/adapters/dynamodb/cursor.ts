import { ValidationError } from '../../domain/errors.ts';

type Key = Record<string, unknown>;

interface CursorBody {
  v: 1;
  /** The tenant the page belongs to: a cursor is refused in any other tenant. */
  t: string;
  /** The index the key belongs to ("" for the table), so a cursor cannot switch queries. */
  i: string;
  k: Key;
}

/** Encodes DynamoDB's LastEvaluatedKey as an opaque, tenant-bound cursor. */
export function encodeCursor(tenant: string, index: string, key: Key): string {
  const body: CursorBody = { v: 1, t: tenant, i: index, k: key };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The error every malformed, foreign or forged cursor gets. */
export const invalidCursor = () =>
  new ValidationError('the cursor is not valid', [{ field: 'cursor', message: 'is not a cursor of this listing' }]);
const invalid = invalidCursor;

/** The JSON object inside a base64url cursor, or ValidationError. */
export function cursorBody<T>(cursor: string): Partial<T> {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof body !== 'object' || body === null) throw invalid();
  return body;
}

/**
 * Decodes a cursor for `tenant` and `index`. The key must be exactly a key of this listing: the
 * attributes of the table (and index) key and nothing else, all strings, the tenant's own table
 * partition, the listing's index partition, and for table listings a sort key under `skPrefix`,
 * so a cursor can be neither replayed in another tenant or listing nor hand-crafted to read one.
 * (The API also authenticates cursors: shared/http/page-cursor.ts.)
 */
export function decodeCursor(cursor: string, tenant: string, index: string, partition: string, skPrefix?: string): Key {
  const { v, t, i, k } = cursorBody<CursorBody>(cursor);
  if (v !== 1 || t !== tenant || i !== index || typeof k !== 'object' || k === null || Array.isArray(k)) throw invalid();
  const names = index === '' ? ['PK', 'SK'] : ['PK', 'SK', `${index}PK`, `${index}SK`];
  const given = Object.keys(k);
  if (given.length !== names.length || !names.every((name) => Object.hasOwn(k, name) && typeof k[name] === 'string' && k[name] !== ''))
    throw invalid();
  if (k.PK !== `T#${tenant}` || (index !== '' && k[`${index}PK`] !== partition)) throw invalid();
  if (index === '' && (k.PK !== partition || (skPrefix !== undefined && !(k.SK as string).startsWith(skPrefix)))) throw invalid();
  return k;
}
