/**
 * `secret.generic_high_entropy`: a long random-looking value assigned to a name that says it is a
 * secret (password, secret, token, api_key, ...). The name, the length, the character mix and the
 * Shannon entropy must all agree, and placeholders, references to the environment and dotted
 * identifiers are refused, which is what keeps gitleaks' generic rule usable.
 */
const ASSIGNMENT =
  /(?:secret|passw(?:or)?d|pwd|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?)[A-Za-z0-9_.-]{0,40}["']?[ \t]{0,5}(?::=|=>|:|=)[ \t]{0,5}(["'`]?)([^\s"'`,;()<>[\]{}]{20,256})\1/gi;

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

export function findHighEntropyAssignments(text: string): EntropyMatch[] {
  const matches: EntropyMatch[] = [];
  for (const match of text.matchAll(ASSIGNMENT)) {
    const value = match[2];
    if (!isHighEntropySecret(value)) continue;
    matches.push({ value, index: match.index + match[0].lastIndexOf(value) });
  }
  return matches;
}
