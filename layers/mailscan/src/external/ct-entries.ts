import * as z from 'zod';
import { normaliseAddress } from '../discover/candidates.ts';

/**
 * Certificate-transparency search results in crt.sh's JSON shape (DESIGN §6), and what discover and
 * leak read from them. `name_value` holds newline-separated names and, for S/MIME certificates,
 * addresses; `common_name` of an S/MIME certificate is often the person.
 */
export const ctEntrySchema = z.looseObject({
  id: z.number().int(),
  issuer_name: z.string().max(2_000).optional().nullable(),
  common_name: z.string().max(2_000).optional().nullable(),
  name_value: z.string().max(64_000),
  not_before: z.string().max(64).optional().nullable(),
  not_after: z.string().max(64).optional().nullable(),
  entry_timestamp: z.string().max(64).optional().nullable(),
});
export const ctEntriesSchema = z.array(ctEntrySchema).max(100_000);
export type CtEntry = z.infer<typeof ctEntrySchema>;

export interface CtFindings {
  /** Host names at or under the domain (wildcards without their `*.`). */
  names: string[];
  /** Addresses at or under the domain, from S/MIME certificates. */
  addresses: string[];
  /** Person-like common names with the address of their certificate (when it names one). */
  people: { name: string; address: string | null }[];
}

function under(name: string, domain: string): boolean {
  return name === domain || name.endsWith(`.${domain}`);
}

export function readCtEntries(entries: readonly CtEntry[], domain: string, limits = { maxNames: 500, maxAddresses: 200 }): CtFindings {
  const names = new Set<string>();
  const addresses = new Set<string>();
  const people = new Map<string, string | null>();
  for (const entry of entries) {
    const values = entry.name_value
      .split('\n')
      .map((value) => value.trim().toLowerCase())
      .filter(Boolean);
    const entryAddresses: string[] = [];
    for (const value of values) {
      if (value.includes('@')) {
        const address = normaliseAddress(value);
        if (address && under(address.split('@')[1], domain)) {
          entryAddresses.push(address);
          if (addresses.size < limits.maxAddresses) addresses.add(address);
        }
      } else {
        const name = value.replace(/^\*\./, '');
        if (under(name, domain) && /^[a-z0-9.-]+$/.test(name) && names.size < limits.maxNames) names.add(name);
      }
    }
    const commonName = entry.common_name?.trim() ?? '';
    if (
      commonName !== '' &&
      !commonName.includes('.') &&
      !commonName.includes('@') &&
      /\s/.test(commonName) &&
      people.size < limits.maxAddresses
    ) {
      people.set(commonName, entryAddresses.length === 1 ? entryAddresses[0] : (people.get(commonName) ?? null));
    }
  }
  return { names: [...names].sort(), addresses: [...addresses].sort(), people: [...people].map(([name, address]) => ({ name, address })) };
}

/** Certificates whose names cover `host` exactly or by wildcard: the lookalike issuance check. */
export function certificatesFor(
  entries: readonly CtEntry[],
  host: string,
): { id: number; issuer: string | null; not_before: string | null; not_after: string | null; logged_at: string | null }[] {
  const parent = host.split('.').slice(1).join('.');
  return entries
    .filter((entry) =>
      entry.name_value
        .toLowerCase()
        .split('\n')
        .map((value) => value.trim())
        .some((value) => value === host || value === `*.${host}` || value === `*.${parent}`),
    )
    .map((entry) => ({
      id: entry.id,
      issuer: entry.issuer_name ?? null,
      not_before: entry.not_before ?? null,
      not_after: entry.not_after ?? null,
      logged_at: entry.entry_timestamp ?? null,
    }));
}
