import * as z from 'zod';

/** A ULID as the ulid package writes it: 26 characters of Crockford base32 (no I, L, O, U). */
const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

function prefixedUlid(prefix: string) {
  return z.string().regex(new RegExp(`^${prefix}_${ULID}$`), `must be an id of the form ${prefix}_<ULID>`);
}

/** Resource ids (DESIGN §4): a prefix and a ULID, so ids sort by creation time. */
export const ScheduleId = prefixedUlid('sch');
export const ScanId = prefixedUlid('scan');
export const ArtifactId = prefixedUlid('art');
export const NotificationRuleId = prefixedUlid('ntf');

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The creation time a prefixed ULID carries (its first 10 characters, milliseconds); null if it is not one. */
export function timeOfId(id: string): Date | null {
  const ulid = id.slice(id.indexOf('_') + 1);
  if (!new RegExp(`^${ULID}$`).test(ulid)) return null;
  let ms = 0;
  for (const character of ulid.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(character);
  return new Date(ms);
}
