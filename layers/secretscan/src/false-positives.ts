/**
 * What a match must be to count as a secret beyond matching its pattern (issue 33 item 10), as
 * gitleaks' allowlists and GitHub's own secret scanning judge it:
 *
 * - A token whose format carries a checksum is verified: GitHub's `ghp_`/`gho_`/`ghu_`/`ghs_`/
 *   `ghr_` and npm's `npm_` end in six base62 characters (0-9A-Za-z) of the CRC32 of the random part
 *   between the prefix and them (github.blog, 2021-04-05 and 2021-09-23). One that does not verify
 *   was typed, not issued.
 * - A placeholder is not a secret: a value (after its prefix) of one or two repeated characters
 *   (`ghp_xxxx…`, `0000…`), or one that says it is a placeholder (`YOUR_TOKEN_HERE`, `<token>`,
 *   `REPLACE_ME`, `changeme`, `${TOKEN}`).
 */
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CHECKSUMMED = /^(?:gh[pousr]|npm)_([0-9A-Za-z]+)([0-9A-Za-z]{6})$/;

/** The format's checksum of `random`: CRC32, base62, zero-padded to six characters. */
export function base62Crc32(random: string): string {
  let value = crc32(random);
  let out = '';
  do {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  } while (value > 0);
  return out.padStart(6, '0');
}

/**
 * False for a GitHub or npm token of the checksummed shape whose checksum does not verify; true for
 * every other value (other shapes, such as the `ghs_<id>_<jwt>` of GitHub Apps, carry none).
 */
export function checksumHolds(value: string): boolean {
  const match = CHECKSUMMED.exec(value);
  return !match || base62Crc32(match[1]) === match[2];
}

/** The known prefixes of token formats, stripped before a value is judged a placeholder. */
const PREFIX = /^(?:gh[pousr]_|github_pat_|npm_|glpat-|xox[abposr]-|sk_(?:live|test)_|rk_(?:live|test)_|AKIA|ASIA|SG\.)/;
const PLACEHOLDER_WORDS =
  /your[_-]?(?:own[_-]?)?(?:api[_-]?)?(?:token|key|secret|password|pass)|(?:token|key|secret|password)[_-]?here|placeholder|replace[_-]?me|change[_-]?me|insert[_-]?(?:token|key)|^<[^>]*>$|^\$\{[^}]*\}$|^\{\{[^}]*\}\}$/i;

export function isPlaceholder(value: string): boolean {
  const body = value.replace(PREFIX, '');
  if (body.length === 0) return true;
  if (new Set(body.toLowerCase()).size <= 2 && body.length >= 6) return true;
  return PLACEHOLDER_WORDS.test(body);
}

/** Whether a pattern's match counts as a secret. */
export function countsAsSecret(value: string): boolean {
  return checksumHolds(value) && !isPlaceholder(value);
}
