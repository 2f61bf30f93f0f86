/**
 * Installs the reference llmscan is compared with (promptfoo, pinned in this folder's lock) into
 * node_modules/.cache/llmscan-promptfoo/, apart from the repository's packages: as a devDependency
 * of the repository, promptfoo 0.123.1 moves some 550 locked versions (the AWS SDK's @smithy and
 * @aws-sdk among them) and the service no longer typechecks. `npx tsx layers/llmscan/reference/install.ts`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REFERENCE_DIR = fileURLToPath(new URL('../../../node_modules/.cache/llmscan-promptfoo/', import.meta.url));
/** promptfoo's CLI, run with this Node (it needs 22.22 or later). */
export const PROMPTFOO_ENTRY = join(REFERENCE_DIR, 'node_modules', 'promptfoo', 'dist', 'src', 'entrypoint.js');

export const promptfooInstalled = (): boolean => existsSync(PROMPTFOO_ENTRY);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(REFERENCE_DIR, { recursive: true });
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(fileURLToPath(new URL(file, import.meta.url)), join(REFERENCE_DIR, file));
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', REFERENCE_DIR], { stdio: 'inherit' });
  process.stdout.write(`promptfoo installed: ${PROMPTFOO_ENTRY}\n`);
}
