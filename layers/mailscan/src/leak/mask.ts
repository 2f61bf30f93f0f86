/**
 * What of a leaked record may be shown: an address masked to its first character and domain
 * (`j***@example.com`), never a password, a hash, or a whole address (DESIGN §6).
 */
export function maskAddress(address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at < 1 || at === address.length - 1) return null;
  return `${address[0]}***@${address.slice(at + 1).toLowerCase()}`;
}

/** Field names a record exposes (non-empty values), without the values. */
export function exposedFields(record: Record<string, unknown>, fields: readonly string[]): string[] {
  return fields.filter((field) => {
    const value = record[field];
    if (Array.isArray(value)) return value.some((item) => typeof item === 'string' && item.trim() !== '');
    return typeof value === 'string' ? value.trim() !== '' : value !== undefined && value !== null && value !== false;
  });
}

/** The first string of a field that may be a string or a list of strings (DeHashed v2 uses lists). */
export function firstString(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.find((item): item is string => typeof item === 'string') ?? null;
  return null;
}
