import { randomBytes, randomInt } from 'node:crypto';

/**
 * Random identifiers that match nothing: an AE title, a patient id and a UID the scan makes up
 * fresh each time. Random, not guessed: no list of likely titles exists anywhere in the engine.
 */
export const randomAeTitle = (): string => `MS${randomBytes(7).toString('hex').toUpperCase()}`;
export const randomPatientId = (): string => `MEDSCAN-NOMATCH-${randomBytes(8).toString('hex')}`;
/** A UID under the 2.25 (UUID-derived) arc: unique by construction, so no study has it. */
export const randomUid = (): string => `2.25.${BigInt(`0x${randomBytes(16).toString('hex')}`).toString()}`;
export const randomDigits = (): string => String(randomInt(1e9, 1e10));
