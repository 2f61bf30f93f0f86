import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** A fixture folder as the scan sees a tree: repository path → text. */
export function loadTree(dir: string, prefix = ''): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(prefix + relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

/** The npm fixtures made by the real package managers (fixtures/README.md says how). */
export const NPM_FIXTURES = ['npm-v1', 'npm-v2', 'npm-v3', 'npm-shrinkwrap', 'yarn-v1', 'yarn-berry', 'pnpm-v6', 'pnpm-v9'] as const;
