import type { FieldIssue } from './errors.ts';
import { isWellFormedText } from './text.ts';

/** Names that mean something to JavaScript objects: refused as keys anywhere in a body or scope. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** DynamoDB numbers: 38 significant digits between 1E-130 and 9.99E+125; JavaScript integers are exact only up to 2^53. */
function numberProblem(value: number): string | null {
  if (!Number.isFinite(value)) return 'must be a finite number';
  if (Number.isInteger(value)) return Number.isSafeInteger(value) ? null : 'must be an integer within ±9007199254740991';
  const magnitude = Math.abs(value);
  if (magnitude < 1e-130 || magnitude >= 9.99e125) return 'must be a number between 1e-130 and 9.99e125 in magnitude';
  return null;
}

/**
 * Checks that a free-form value can be stored and read back unchanged: bounded depth, finite
 * numbers the store can hold exactly, well-formed strings, no keys that JavaScript objects treat
 * specially. Iterative, so no input can exhaust the stack.
 */
export function storableIssues(root: unknown, field: string, maxDepth: number): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: root, path: field, depth: 0 }];
  while (pending.length > 0 && issues.length < 20) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'number') {
      const problem = numberProblem(value);
      if (problem) issues.push({ field: path, message: problem });
    } else if (typeof value === 'string') {
      if (!isWellFormedText(value)) issues.push({ field: path, message: 'must be valid Unicode (no lone surrogates)' });
    } else if (value !== null && typeof value === 'object') {
      if (depth >= maxDepth) {
        issues.push({ field: path, message: `must nest at most ${maxDepth} levels deep` });
        continue;
      }
      const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
      for (const [key, item] of entries) {
        const itemPath = path === '' ? key : `${path}.${key}`;
        if (!Array.isArray(value) && (RESERVED_KEYS.has(key) || key === '' || !isWellFormedText(key))) {
          issues.push({ field: itemPath, message: key === '' ? 'keys must not be empty' : 'is a reserved or invalid key' });
        } else {
          pending.push({ value: item, path: itemPath, depth: depth + 1 });
        }
      }
    } else if (value !== null && typeof value !== 'boolean') {
      issues.push({ field: path, message: 'must be JSON' });
    }
  }
  return issues;
}
