/**
 * What the engines' tests need on the machine, from every manifest's `testNeeds`
 * (layers/manifests.ts): `.ci/run` installs the Debian packages and then fails, not skips, when a
 * binary or Python module a manifest names is missing.
 *
 *   npx tsx scripts/test-needs.ts debian    # the packages, space-separated
 *   npx tsx scripts/test-needs.ts check     # exit 1 naming what is missing
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineManifest } from '../lib/engine-manifest.ts';
import { MANIFESTS } from '../layers/manifests.ts';

/** The tests run Debian's python3 (its packages' modules), not whichever python3 is first on PATH. */
const SYSTEM_PYTHON = '/usr/bin/python3';

const unique = (values: readonly string[]): string[] => [...new Set(values)].sort();

export function debianPackages(manifests: readonly EngineManifest[] = MANIFESTS): string[] {
  return unique(manifests.flatMap((manifest) => manifest.testNeeds.debian));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A name on PATH or an absolute path that is executable. */
export function hasBinary(binary: string, path: string = process.env.PATH ?? ''): boolean {
  if (isAbsolute(binary)) return executable(binary);
  return path.split(delimiter).some((dir) => dir !== '' && executable(join(dir, binary)));
}

/** What the manifests name that this machine lacks, each with its engine. */
export function missingNeeds(manifests: readonly EngineManifest[] = MANIFESTS): string[] {
  const missing: string[] = [];
  for (const manifest of manifests) {
    for (const binary of manifest.testNeeds.binaries)
      if (!hasBinary(binary)) missing.push(`${manifest.name}: executable ${binary} (from ${manifest.testNeeds.debian.join(', ')})`);
    for (const module of manifest.testNeeds.python ?? []) {
      const probe = spawnSync(SYSTEM_PYTHON, ['-c', `import ${module}`], { stdio: 'ignore' });
      if (probe.status !== 0) missing.push(`${manifest.name}: ${SYSTEM_PYTHON} module ${module}`);
    }
  }
  return missing;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === 'debian') process.stdout.write(`${debianPackages().join(' ')}\n`);
  else if (command === 'check') {
    const missing = missingNeeds();
    for (const line of missing) process.stderr.write(`MISSING ${line}\n`);
    if (missing.length > 0) process.exit(1);
    process.stdout.write(`every reference tool and server the manifests name is here\n`);
  } else {
    process.stderr.write('usage: npx tsx scripts/test-needs.ts debian|check\n');
    process.exit(2);
  }
}
