/**
 * `.secretscanignore` at the root of the scanned branch: one SHA-256 fingerprint (the evidence's
 * `sha256`, the finding's fingerprint key) per line, `#` starts a comment, anything after the hash
 * on a line is a note. A line that is not a hash is reported back, never guessed at.
 */
export const IGNORE_FILE = '.secretscanignore';

export interface IgnoreList {
  fingerprints: ReadonlySet<string>;
  /** 1-based numbers of lines that hold something other than a fingerprint. */
  invalidLines: number[];
}

export function parseIgnoreFile(text: string): IgnoreList {
  const fingerprints = new Set<string>();
  const invalidLines: number[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const [first] = line.split(/\s+/);
    if (/^[0-9a-f]{64}$/i.test(first)) fingerprints.add(first.toLowerCase());
    else invalidLines.push(index + 1);
  });
  return { fingerprints, invalidLines };
}
