import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The services are generic (DESIGN §11): an engine's facts (its scan type, its artifact fields,
 * its summary metrics) reach them through its manifest, never by name. A service line that names
 * mailscan's scan type or its artifact fields is one that would have to change for the next
 * engine, so none may.
 */
const SERVICES = join(import.meta.dirname, '../../shared/services');
const ENGINE_NAMES = /\b(email_security|rua|header)\b/;

function namingLines(text: string, file: string): string[] {
  return text.split('\n').flatMap((line, index) => (ENGINE_NAMES.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

describe('shared/services names no engine', () => {
  it('finds a line that names one (the check itself works)', () => {
    expect(namingLines("const x = scope.rua;\nconst y = 'headers';\nscan_type: 'email_security'", 'sample.ts')).toEqual([
      'sample.ts:1: const x = scope.rua;',
      "sample.ts:3: scan_type: 'email_security'",
    ]);
  });

  it('has no line naming email_security, rua or header in any service', () => {
    const files = readdirSync(SERVICES, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));

    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => namingLines(readFileSync(join(SERVICES, file), 'utf8'), file))).toEqual([]);
  });
});
