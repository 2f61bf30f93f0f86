/**
 * `npm run preflight -- --env dev|prod`: the deploy preconditions no synth can see, checked with the
 * caller's AWS credentials and region before `cdk deploy` (infra/preflight.ts, docs/deploy.md).
 * Prints one line per check; exit 0 when all pass, 1 when one fails, 2 on usage errors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { IAMClient } from '@aws-sdk/client-iam';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SSMClient } from '@aws-sdk/client-ssm';
import { resolveEnvironment } from '../infra/environment-settings.ts';
import { repositoryRoot } from '../infra/paths.ts';
import { runPreflight } from '../infra/preflight.ts';

const { values } = parseArgs({ options: { env: { type: 'string' } } });
const { context } = JSON.parse(readFileSync(join(repositoryRoot, 'cdk.json'), 'utf8')) as { context: { environments: unknown } };
let resolved: ReturnType<typeof resolveEnvironment>;
try {
  resolved = resolveEnvironment(values.env, context.environments);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\nusage: npm run preflight -- --env dev|prod\n`);
  process.exit(2);
}
const ssm = new SSMClient({});
const region = await ssm.config.region().catch(() => undefined);
if (!region) {
  process.stderr.write('no AWS region: set AWS_REGION (or a profile with a region) to the account and region you deploy to\n');
  process.exit(2);
}
const checks = await runPreflight(resolved.settings, region, { ssm, iam: new IAMClient({ region }), ses: new SESv2Client({ region }) });
process.stdout.write(`preflight for ${resolved.name} (${resolved.settings.stackName}) in ${region}\n`);
for (const check of checks) process.stdout.write(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.message}\n`);
process.exit(checks.every((check) => check.ok) ? 0 : 1);
