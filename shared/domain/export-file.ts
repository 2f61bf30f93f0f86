import { TENANT_PATTERN } from './identity.ts';

/**
 * Exports too large for one buffered Lambda answer (docs/issues.md, "Export") are written to the
 * artifacts bucket under `_exports/<tenant>/<id>.csv`, offered by a presigned GET URL valid
 * EXPORT_URL_TTL_SECONDS, and expired by the bucket's lifecycle after EXPORT_TTL_DAYS. The prefix
 * starts with `_`, which no tenant id can (TENANT_PATTERN), so the exports grant never covers a
 * tenant's artifacts (`<tenant>/<id>`): under `exports/` it covered those of a tenant named exports.
 */
export const EXPORT_PREFIX = '_exports/';
export const EXPORT_TTL_DAYS = 1;
export const EXPORT_URL_TTL_SECONDS = 5 * 60;

/** The bucket key of one export of a tenant's. */
export function exportKey(tenant: string, id: string): string {
  if (!TENANT_PATTERN.test(tenant) || !/^exp_[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) throw new Error(`invalid export key ${tenant}/${id}`);
  return `${EXPORT_PREFIX}${tenant}/${id}.csv`;
}
