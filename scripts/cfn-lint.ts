/**
 * cfn-lint on both synthesized environments (docs/cfn-lint.md): `npx tsx scripts/cfn-lint.ts
 * [cdk.out cdk.out.prod]`. Given cloud-assembly folders (CI's `cdk synth` output), it lints their
 * stack templates; given none, it synthesizes dev and prod itself with bundling skipped (the
 * function code is no part of a template's validity). The rules left switched off, each with its
 * reason, are in .cfnlintrc.yaml. Exit 1 on any finding, 2 when cfn-lint is not installed.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { environmentNames } from '../infra/environment-settings.ts';
import { repositoryRoot } from '../infra/paths.ts';
import { synthesizeWithoutBundling } from '../test/helpers/synth-without-bundling.ts';

function templatesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.template.json'))
    .map((name) => join(dir, name));
}

function synthesizeAll(): string[] {
  return environmentNames.flatMap((env) => synthesizeWithoutBundling(env));
}

const version = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
if (version.status !== 0) {
  process.stderr.write('cfn-lint is not installed: pip install cfn-lint (the machine image has 1.51.0)\n');
  process.exit(2);
}
const dirs = process.argv.slice(2);
const templates = dirs.length > 0 ? dirs.flatMap(templatesIn) : synthesizeAll();
process.stdout.write(`${version.stdout.trim()} on ${templates.length} templates\n`);
const lint = spawnSync('cfn-lint', ['--config-file', join(repositoryRoot, '.cfnlintrc.yaml'), '--', ...templates], {
  encoding: 'utf8',
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (lint.status === 0) process.stdout.write('cfn-lint: no findings\n');
process.exit(lint.status === 0 ? 0 : 1);
