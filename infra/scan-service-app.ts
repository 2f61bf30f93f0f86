import { Tags, type App } from 'aws-cdk-lib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveEnvironment } from './environment-settings.ts';
import { repositoryRoot } from './paths.ts';
import { ScanServiceStack, type ScanServiceStackProps } from './scan-service-stack.ts';

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}

/**
 * Add the stack of the environment named by the `env` context (`-c env=dev|prod`) to `app`.
 * Environment-agnostic on purpose (no account or region lookups), so `cdk synth` works offline;
 * `cdk deploy` fills in the account and region of the caller's credentials. `options` are for
 * tests (a fixture mailscan layer instead of the build output).
 */
export function addScanServiceStack(app: App, options: Pick<ScanServiceStackProps, 'enginesLayerPath'> = {}): ScanServiceStack {
  const { name, settings } = resolveEnvironment(app.node.tryGetContext('env'), app.node.tryGetContext('environments'));
  const stack = new ScanServiceStack(app, settings.stackName, {
    stackName: settings.stackName,
    description: `Scan service (${name}): API, EventBridge triggers, scan queue and dispatch`,
    environmentName: name,
    settings,
    serviceVersion: packageVersion(),
    ...options,
  });
  Tags.of(stack).add('service', 'scan-service');
  Tags.of(stack).add('environment', name);
  return stack;
}
