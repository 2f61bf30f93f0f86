import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { EnvironmentName } from '../../infra/environment-settings.ts';
import { MANIFESTS as ENGINES } from '../../layers/manifests.ts';
import { repositoryRoot } from '../../infra/paths.ts';
import { addScanServiceStack } from '../../infra/scan-service-app.ts';
import type { ScanServiceStack } from '../../infra/scan-service-stack.ts';

/** CloudFormation template JSON, untyped by nature: whatever Template.toJSON() holds. */
export type Json = ReturnType<Template['toJSON']>[string];

export interface Statement {
  Effect: string;
  Action: string[];
  Resource: Json[];
  Condition?: Json;
  Principal?: Json;
}

export type FunctionName = keyof ScanServiceStack['functions'];

export const cdkContext = JSON.parse(readFileSync(join(repositoryRoot, 'cdk.json'), 'utf8')).context;
export const environments: EnvironmentName[] = ['dev', 'prod'];
/**
 * Stands in for the `npm run build` output: a placeholder bin/<engine> per engine of
 * layers/manifests.ts (a shell script that only names itself), so no build is needed.
 */
export const fixtureLayer = makeFixtureLayer();

function makeFixtureLayer(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'engines-layer-')), 'layer');
  mkdirSync(join(dir, 'bin'), { recursive: true });
  for (const engine of ENGINES) {
    const bin = join(dir, 'bin', engine.name);
    writeFileSync(
      bin,
      `#!/bin/sh\n# Test fixture, not the engine: the real CLI is layers/dist/bin/${engine.name}.\necho "${engine.name} fixture"\n`,
    );
    chmodSync(bin, 0o755);
  }
  return dir;
}

export interface SynthesizedStack {
  stack: ScanServiceStack;
  template: Template;
}

/**
 * One synth per environment per test worker (bundling seven functions takes seconds), made when a
 * describe block first asks for it. The `infra` project in vitest.config.ts runs these files in
 * one worker without isolation, so every file of test/infra shares the two synths.
 */
const synthesized = new Map<EnvironmentName, SynthesizedStack>();

/**
 * Every synth of this worker writes its cloud assembly to this one folder: CDK's asset cache keys a
 * bundle by its source, its bundling options and the output folder, so dev, prod and the backfill
 * variant then bundle each function once instead of once per synth (the bundles are the same
 * bytes: same sources, same options; each synth still has its own template and asset hashes).
 */
const assemblyDir = mkdtempSync(join(tmpdir(), 'infra-synth-'));

function newApp(context: Record<string, unknown>): App {
  return new App({ context, outdir: assemblyDir });
}

export function synthesizedStack(env: EnvironmentName): SynthesizedStack {
  let found = synthesized.get(env);
  if (!found) {
    const started = performance.now();
    const stack = addScanServiceStack(newApp({ ...cdkContext, env }), { enginesLayerPath: fixtureLayer });
    found = { stack, template: Template.fromStack(stack) };
    synthesized.set(env, found);
    console.info(`synth ${env}: ${Math.round(performance.now() - started)} ms`);
  }
  return found;
}

/** A backfill block for dev, as an operator would add it to cdk.json for the one-off run. */
export const backfillSettings = {
  legacyDatabaseSecretName: 'legacy/django-db',
  subnetIds: ['subnet-0a1b2c3d4e5f60718', 'subnet-0f1e2d3c4b5a69788'],
  securityGroupId: 'sg-0123456789abcdef0',
};

let withBackfill: SynthesizedStack | undefined;

/** dev with the backfill block: the only synth that has the backfill function, shared like the others. */
export function synthesizedStackWithBackfill(): SynthesizedStack {
  if (!withBackfill) {
    const environments = { ...cdkContext.environments, dev: { ...cdkContext.environments.dev, backfill: backfillSettings } };
    const stack = addScanServiceStack(newApp({ ...cdkContext, environments, env: 'dev' }), {
      enginesLayerPath: fixtureLayer,
    });
    withBackfill = { stack, template: Template.fromStack(stack) };
  }
  return withBackfill;
}

// ---- template queries ------------------------------------------------------------------------

export function logicalId(stack: Stack, construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

export function ref(stack: Stack, construct: IConstruct): Json {
  return { Ref: logicalId(stack, construct) };
}

export function arnOf(stack: Stack, construct: IConstruct): Json {
  return { 'Fn::GetAtt': [logicalId(stack, construct), 'Arn'] };
}

function asList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function normalise(statement: Json): Statement {
  return { ...statement, Action: asList(statement.Action), Resource: asList(statement.Resource) };
}

/** `arn:<partition>:scheduler:<region>:<account>:<suffix>` as the template writes it. */
export function schedulerArn(suffix: string): Json {
  return {
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${suffix}`],
    ],
  };
}

/** Every identity-policy statement that applies to the role: attached AWS::IAM::Policy and inline. */
export function statementsOfRole(template: Template, roleId: string): Statement[] {
  const role = template.toJSON().Resources[roleId];
  expect(role.Type).toBe('AWS::IAM::Role');
  const inline = asList<Json>(role.Properties.Policies).flatMap((policy) => policy.PolicyDocument.Statement);
  const attached = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy: Json) => asList(policy.Properties.Roles).some((r: Json) => r.Ref === roleId))
    .flatMap((policy: Json) => policy.Properties.PolicyDocument.Statement as Json[]);
  return [...inline, ...attached].map(normalise);
}

/** Every statement of every policy document in the template (identity and resource policies). */
export function allStatements(template: Template): Array<{ owner: string; statement: Statement }> {
  const found: Array<{ owner: string; statement: Statement }> = [];
  for (const [id, resource] of Object.entries<Json>(template.toJSON().Resources)) {
    const documents: Json[] = [];
    if (resource.Properties?.PolicyDocument) documents.push(resource.Properties.PolicyDocument);
    for (const policy of asList<Json>(resource.Properties?.Policies)) documents.push(policy.PolicyDocument);
    // A policy names its role by Ref, or by name for a role imported from outside the stack.
    const role = resource.Type === 'AWS::IAM::Policy' ? asList<Json>(resource.Properties.Roles)[0] : null;
    const owner = role === null ? id : typeof role === 'string' ? role : role.Ref;
    for (const document of documents) for (const statement of document.Statement) found.push({ owner, statement: normalise(statement) });
  }
  return found;
}

/** The Lambda function resource behind one of the stack's service functions. */
export function functionResource(env: EnvironmentName, fn: FunctionName): Json {
  const { stack, template } = synthesizedStack(env);
  return template.toJSON().Resources[logicalId(stack, stack.functions[fn]!.handler)];
}

/** Where the synth wrote a function's bundle (index.mjs and its map). */
export function bundleDirectory(env: EnvironmentName, fn: FunctionName): string {
  const { stack } = synthesizedStack(env);
  const key: string = functionResource(env, fn).Properties.Code.S3Key;
  return join(App.of(stack)?.outdir ?? '', `asset.${key.replace(/\.zip$/, '')}`);
}
