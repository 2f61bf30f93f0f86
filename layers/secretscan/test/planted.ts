import { generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Secrets planted in the test repositories, made at test time from random bytes, so this
 * repository never holds a string a secret scanner would flag. Prefixes are split for the same
 * reason.
 */
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = `${ALNUM}+/`;

export function randomFrom(alphabet: string, length: number): string {
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/** A random string that has digits and letters and high entropy (what a generated secret looks like). */
export function randomSecret(length: number): string {
  for (;;) {
    const value = randomFrom(ALNUM, length);
    if (/[0-9]/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value)) return value;
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The 6-character checksum of GitHub's and npm's token formats: CRC32 of the random part, base62, zero-padded. */
export function tokenChecksum(random: string): string {
  let value = crc32(random);
  let out = '';
  do {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  } while (value > 0);
  return out.padStart(6, '0');
}

/** A token of GitHub's or npm's format (`ghp_`, `npm_`, ...): 30 random characters and their checksum. */
export function checksummedToken(prefix: string): string {
  const random = randomSecret(30);
  return `${prefix}${random}${tokenChecksum(random)}`;
}

export interface Planted {
  awsKeyId: string;
  awsSecret: string;
  githubToken: string;
  slackToken: string;
  gitlabToken: string;
  npmToken: string;
  dbPassword: string;
  urlPassword: string;
  privateKey: string;
  genericSecret: string;
  stripeKey: string;
}

export function plantSecrets(): Planted {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  return {
    awsKeyId: ['AK', 'IA'].join('') + randomFrom(UPPER, 16),
    // Ends in a letter or digit: secretlint's AWS pattern ends in `\b`, so a key ending in + or /
    // (1 in 32 of random keys) is not found (docs/secretscan.md, Rules); the tests failed that often.
    awsSecret: randomFrom(B64, 39) + randomFrom(ALNUM, 1),
    githubToken: checksummedToken(['gh', 'p_'].join('')),
    slackToken: `${['xo', 'xb'].join('')}-${randomInt(1e11, 1e12)}-${randomInt(1e11, 1e12)}-${randomSecret(24)}`,
    gitlabToken: ['gl', 'pat-'].join('') + randomSecret(20),
    npmToken: checksummedToken(['np', 'm_'].join('')),
    dbPassword: randomSecret(18),
    urlPassword: randomSecret(16),
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    genericSecret: randomSecret(40),
    stripeKey: ['sk', '_live_'].join('') + randomSecret(32),
  };
}

/** Every planted value a report or a log line must never contain (and the parts of the PEM that identify it). */
export function plantedValues(planted: Planted): string[] {
  const { privateKey, ...rest } = planted;
  const body = privateKey.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
  return [...Object.values(rest), ...body];
}

/** A base64 integrity hash as lock files hold them: high entropy, not a secret. */
export function integrityHash(): string {
  return `sha512-${randomBytes(64).toString('base64')}`;
}
