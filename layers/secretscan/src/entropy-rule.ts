/**
 * `secret.generic_high_entropy`: a long random-looking value assigned to a name that says it is a
 * secret (password, secret, token, api_key, ...). The name, the length, the character mix and the
 * Shannon entropy must all agree, and placeholders, references to the environment and dotted
 * identifiers are refused, which is what keeps gitleaks' generic rule usable.
 */
export const ASSIGNMENT =
  /(?:secret|passw(?:or)?d|pwd|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?)[A-Za-z0-9_.-]{0,40}["']?[ \t]{0,5}(?::=|=>|:|=)[ \t]{0,5}(["'`]?)([^\s"'`,;()<>[\]{}]{20,256})\1/gi;

/**
 * Every match of ASSIGNMENT starts with one of these, in any mix of case: the leading letters of
 * each alternative of its name (`passw(?:or)?d`: passw; `api[_-]?key`: api). The `i` flag without
 * `u` folds only ASCII letters onto ASCII, so an ASCII comparison ignoring case finds every start.
 * rule-keywords.ts finds them in its pass over the text; rule-keywords.test.ts checks this list
 * against the expression's alternatives.
 */
export const ASSIGNMENT_NAME_STARTS: readonly string[] = [
  'secret',
  'passw',
  'pwd',
  'token',
  'api',
  'access',
  'auth',
  'private',
  'client',
  'credential',
];
/** ASSIGNMENT anchored where lastIndex says. */
const ASSIGNMENT_AT = new RegExp(ASSIGNMENT.source, 'iy');

const PLACEHOLDER =
  /example|sample|dummy|placeholder|changeme|change_me|replace|your[_-]|xxxx|\*\*\*|redacted|fake|insert|todo|\$\{|\{\{|%\(|process\.env|os\.environ|getenv|environ\[/i;
const DOTTED_IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
const WORDS = /^[a-z]+(?:[_-][a-z]+)+$/i;
const MIN_ENTROPY = 3.5;

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Whether `value` reads as a generated secret rather than a word, a name or a placeholder. */
export function isHighEntropySecret(value: string): boolean {
  if (value.length < 20) return false;
  if (PLACEHOLDER.test(value) || DOTTED_IDENTIFIER.test(value) || WORDS.test(value)) return false;
  if (/^(.)\1+$/.test(value) || value.includes('://') || value.startsWith('/')) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
  return shannonEntropy(value) >= MIN_ENTROPY;
}

export interface EntropyMatch {
  value: string;
  /** Offset of the value in the text. */
  index: number;
}

/**
 * The high-entropy assignments in `text`. With `starts` (every offset where a match can start,
 * ascending: where an ASSIGNMENT_NAME_STARTS literal does, from rule-keywords.ts' pass), the
 * expression is tried only there, skipping offsets inside the last match, which gives exactly the
 * matches of a scan of the whole text (a match can start nowhere else) without its cost.
 */
export function findHighEntropyAssignments(text: string, starts?: readonly number[]): EntropyMatch[] {
  const matches: EntropyMatch[] = [];
  const add = (match: RegExpMatchArray, index: number): void => {
    const value = match[2];
    if (isHighEntropySecret(value)) matches.push({ value, index: index + match[0].lastIndexOf(value) });
  };
  if (starts === undefined) {
    for (const match of text.matchAll(ASSIGNMENT)) add(match, match.index);
    return matches;
  }
  let next = 0;
  for (const start of starts) {
    if (start < next) continue;
    ASSIGNMENT_AT.lastIndex = start;
    const match = ASSIGNMENT_AT.exec(text);
    if (match === null) continue;
    next = start + match[0].length;
    add(match, start);
  }
  return matches;
}
