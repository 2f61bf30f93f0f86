import { readdirSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_PROJECTS } from '../../vitest.config.ts';

const SKIPPED = /^(node_modules|dist|\.git|cdk\.out.*|\.test-results)$/;

/** Every test file of the repository, as a path from its root (dependencies and build output aside). */
function testFiles(directory = ''): string[] {
  return readdirSync(directory || '.', { withFileTypes: true }).flatMap((entry) => {
    const path = directory ? join(directory, entry.name) : entry.name;
    if (entry.isDirectory()) return SKIPPED.test(entry.name) ? [] : testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [path.split('\\').join('/')] : [];
  });
}

describe('the vitest projects', () => {
  it('put every test file in exactly one project, so none is silently never run', () => {
    const misplaced = testFiles().flatMap((file) => {
      const projects = Object.entries(TEST_PROJECTS)
        .filter(([, globs]) => globs.some((glob) => matchesGlob(file, glob)))
        .map(([name]) => name);
      return projects.length === 1 ? [] : [`${file}: ${projects.length === 0 ? 'in no project' : projects.join(', ')}`];
    });

    expect(testFiles().length).toBeGreaterThan(100);
    expect(misplaced).toEqual([]);
  });
});
