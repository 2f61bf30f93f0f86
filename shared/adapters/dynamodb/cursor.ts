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

const invalid = () => new ValidationError('the cursor is not valid', [{ field: 'cursor', message: 'is not a cursor of this listing' }]);

/**
 * Decodes a cursor for `tenant` and `index`. The key's partition must be the tenant's own, so
 * a cursor cannot be replayed in another tenant or hand-crafted to read one.
 */
export function decodeCursor(cursor: string, tenant: string, index: string, partitionPrefix: string): Key {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof body !== 'object' || body === null) throw invalid();
  const { v, t, i, k } = body as Partial<CursorBody>;
  if (v !== 1 || t !== tenant || i !== index || typeof k !== 'object' || k === null) throw invalid();
  const values = Object.values(k);
  if (values.length > 4 || !values.every((value) => typeof value === 'string')) throw invalid();
  const partition = index === '' ? k.PK : k[`${index}PK`];
  if (typeof partition !== 'string' || !partition.startsWith(partitionPrefix) || k.PK !== `T#${tenant}`) throw invalid();
  return k;
}
