import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { EnvironmentName } from '../../infra/environment-settings.ts';
import { repositoryRoot } from '../../infra/paths.ts';
import { addScanServiceStack } from '../../infra/scan-service-app.ts';
import { MANIFESTS as ENGINES } from '../../layers/manifests.ts';

/** A CloudFormation template as JSON. */
export type TemplateJson = { Resources: Record<string, { Type: string; Properties?: any }> };

/** bin/<engine> for every engine: the synth checks the layer's files, not what they do. */
function placeholderLayer(): string {
  const dir = mkdtempSync(join(tmpdir(), 'synth-layer-'));
  mkdirSync(join(dir, 'bin'));
  for (const engine of ENGINES) writeFileSync(join(dir, 'bin', engine.name), '#!/bin/sh\n', { mode: 0o755 });
  return dir;
}

/**
 * The cloud assembly of environment `env` as `cdk synth` writes it, with every function bundle
 * skipped (an empty `aws:cdk:bundling-stacks`): the templates are the same but for the code
 * assets' hashes, in seconds instead of the bundling's tens of seconds. Returns the template files.
 */
export function synthesizeWithoutBundling(env: EnvironmentName): string[] {
  const context = JSON.parse(readFileSync(join(repositoryRoot, 'cdk.json'), 'utf8')).context;
  const outdir = mkdtempSync(join(tmpdir(), `synth-${env}-`));
  const app = new App({ outdir, context: { ...context, env, 'aws:cdk:bundling-stacks': [] } });
  addScanServiceStack(app, { enginesLayerPath: placeholderLayer() });
  app.synth();
  return readdirSync(outdir)
    .filter((name) => name.endsWith('.template.json'))
    .map((name) => join(outdir, name));
}

/** The stack template of `env` (the one template of its assembly). */
export function synthesizedTemplate(env: EnvironmentName): TemplateJson {
  const [file] = synthesizeWithoutBundling(env);
  return JSON.parse(readFileSync(file, 'utf8')) as TemplateJson;
}
