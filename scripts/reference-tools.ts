/**
 * `npm run reference-tools`: installs the npm reference tools the manifests' `testNeeds.npm` name
 * (cdxgen, cyclonedx-npm, ...) into `.reference-tools/`, once per list of versions. They are not
 * devDependencies: the registry copy this project installs from lacks their optional per-platform
 * packages, and `npm ci` refuses a lock file without them (docs/reference-tools.md). `.ci/run` runs
 * this before `npm test`; the tests that compare against a tool find it with `referenceTool()`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REFERENCE_TOOLS_DIR = fileURLToPath(new URL('../.reference-tools/', import.meta.url));

/** The installed executable of an npm reference tool, or undefined when it is not installed. */
export function referenceTool(bin: string): string | undefined {
  const path = join(REFERENCE_TOOLS_DIR, 'node_modules', '.bin', bin);
  return existsSync(path) ? path : undefined;
}

async function wanted(): Promise<string[]> {
  const { MANIFESTS } = await import('../layers/manifests.ts');
  return [...new Set(MANIFESTS.flatMap((manifest) => manifest.testNeeds.npm ?? []))].sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const packages = await wanted();
  const stamp = join(REFERENCE_TOOLS_DIR, 'installed.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === JSON.stringify(packages)) {
    process.stdout.write(`reference tools up to date: ${packages.join(' ')}\n`);
  } else {
    mkdirSync(REFERENCE_TOOLS_DIR, { recursive: true });
    writeFileSync(join(REFERENCE_TOOLS_DIR, 'package.json'), '{"private":true}\n');
    execFileSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', REFERENCE_TOOLS_DIR, ...packages],
      { stdio: 'inherit' },
    );
    writeFileSync(stamp, JSON.stringify(packages));
    process.stdout.write(`reference tools installed: ${packages.join(' ')}\n`);
  }
}
