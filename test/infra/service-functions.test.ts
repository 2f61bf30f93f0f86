import { describe, expect, it } from 'vitest';
import { MANIFESTS } from '../../layers/manifests.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';
import { ENV, classVariable } from '../../shared/config/environment.ts';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repositoryRoot } from '../../infra/paths.ts';
import { routes } from '../../functions/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import {
  arnOf,
  bundleDirectory,
  cdkContext,
  environments,
  functionResource,
  logicalId,
  ref,
  synthesizedStack,
  type FunctionName,
  type Json,
} from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const group = settings.scheduleGroupName;
  const { stack, template } = synthesizedStack(env);

  describe('functions', () => {
    it('runs every function on nodejs24.x and arm64', () => {
      const functions = Object.values<Json>(template.findResources('AWS::Lambda::Function'));
      // Seven service functions, the long class's dispatch function, the artifact check, the notifier,
      // and the session key's rotation function.
      expect(functions).toHaveLength(11);
      for (const fn of functions) {
        expect(fn.Properties.Runtime).toBe('nodejs24.x');
        expect(fn.Properties.Architectures).toEqual(['arm64']);
      }
    });

    it(`keeps every log group ${settings.logRetentionDays} days and gives each function its own`, () => {
      const logGroups = template.findResources('AWS::Logs::LogGroup');
      for (const logGroup of Object.values<Json>(logGroups)) {
        expect(logGroup.Properties.RetentionInDays).toBe(settings.logRetentionDays);
        expect(logGroup.DeletionPolicy).toBe(env === 'prod' ? 'Retain' : 'Delete');
      }
      for (const fn of Object.values(stack.functions).filter((each) => each !== undefined)) {
        const resource = template.toJSON().Resources[logicalId(stack, fn.handler)];
        expect(resource.Properties.LoggingConfig).toEqual({ LogGroup: ref(stack, fn.logGroup) });
      }
    });

    it('sets exactly the environment each function reads', () => {
      const powertools = ['POWERTOOLS_SERVICE_NAME', 'LOG_LEVEL', ENV.environment, ENV.serviceVersion];
      // Each resource class's queue (docs/resource-classes.md): SCAN_QUEUE_ARN and SCAN_QUEUE_ARN_LONG.
      const triggers = [
        ENV.tableName,
        ENV.scheduleGroupName,
        ENV.scanQueueArn,
        classVariable(ENV.scanQueueArn, 'long'),
        ENV.schedulerRoleArn,
        ENV.schedulerDlqArn,
      ];
      const dispatch = [
        ...powertools,
        ENV.tableName,
        ENV.enginesDir,
        ENV.allowPrivateTargets,
        ENV.resourceClass,
        ENV.artifactBucket,
        ENV.operatorKeysSecretArn,
        ENV.eventBusName,
        ENV.credentialKeyArn,
      ];
      const expected = {
        schedules: [
          ...powertools,
          ...triggers,
          ENV.allowedOrigins,
          ENV.scheduleQuota,
          ENV.allowPrivateTargets,
          ENV.notificationSender,
          ENV.appUrl,
          ENV.credentialKeyArn,
        ],
        scans: [
          ...powertools,
          ENV.tableName,
          ENV.scanQueueUrl,
          classVariable(ENV.scanQueueUrl, 'long'),
          ENV.dispatchLogGroup,
          classVariable(ENV.dispatchLogGroup, 'long'),
          ENV.allowedOrigins,
          ENV.scheduleQuota,
          ENV.allowPrivateTargets,
          ENV.artifactBucket,
        ],
        reconcile: [...powertools, ...triggers],
        meta: [...powertools, ENV.allowedOrigins, ENV.scanRunners, ENV.allowPrivateTargets],
        authorizer: [...powertools, ENV.sessionKeySecretArn, ENV.bearerOnlyRoutes],
        dispatch,
        longDispatch: dispatch,
        artifactCheck: [...powertools, ENV.tableName, ENV.artifactBucket],
        dispatchDeadLetter: [...powertools, ENV.tableName],
        notifier: [...powertools, ENV.tableName, ENV.notificationQueueUrl, ENV.notificationSender, ENV.appUrl],
      };
      expect(Object.keys(expected).sort()).toEqual(Object.keys(stack.functions).sort());
      for (const [fn, names] of Object.entries(expected)) {
        const variables = functionResource(env, fn as keyof typeof expected).Properties.Environment.Variables;
        expect(Object.keys(variables).sort(), fn).toEqual([...names].sort());
      }
    });

    it('points the trigger variables at this stack’s group, queue, role and DLQ', () => {
      const variables = functionResource(env, 'schedules').Properties.Environment.Variables;
      expect(variables).toMatchObject({
        [ENV.tableName]: ref(stack, stack.storage.table),
        [ENV.scheduleGroupName]: group,
        [ENV.scanQueueArn]: arnOf(stack, stack.scheduling.scanQueue),
        [ENV.schedulerRoleArn]: arnOf(stack, stack.scheduling.executionRole),
        [ENV.schedulerDlqArn]: arnOf(stack, stack.scheduling.schedulerDeadLetterQueue),
        [ENV.allowedOrigins]: settings.allowedOrigins.join(','),
        [ENV.scheduleQuota]: String(settings.scheduleQuota),
        [ENV.environment]: env,
        LOG_LEVEL: settings.logLevel,
      });
    });

    it('ships each bundle with a map of our own sources, read at the first stack instead of --enable-source-maps', () => {
      for (const fn of Object.keys(stack.functions) as FunctionName[]) {
        const { Properties } = functionResource(env, fn);
        expect(Properties.Environment.Variables.NODE_OPTIONS, fn).toBeUndefined();
        const map = JSON.parse(readFileSync(join(bundleDirectory(env, fn), 'index.mjs.map'), 'utf8'));
        expect(map.sources.length, fn).toBeGreaterThan(0);
        for (const source of map.sources) {
          expect(source, fn).not.toMatch(/^\.\.|node_modules/);
          expect(existsSync(join(repositoryRoot, source)), `${fn}: ${source}`).toBe(true);
        }
      }
      // The authorizer's real bundle, loaded as Lambda loads it: an error inside it names our source.
      // Copied under the repository (cdk.out* is ignored) so its SDK imports resolve as the runtime's would.
      const copy = mkdtempSync(join(repositoryRoot, 'cdk.out-stack-trace-'));
      let stack_: string;
      try {
        cpSync(bundleDirectory(env, 'authorizer'), copy, { recursive: true });
        const bundle = pathToFileURL(join(copy, 'index.mjs')).href;
        const script = `const { handler } = await import(${JSON.stringify(bundle)});\ntry { await handler(null); } catch (error) { process.stdout.write(error.stack); }`;
        stack_ = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
          env: {
            PATH: process.env.PATH ?? '',
            AWS_REGION: 'eu-west-1',
            [ENV.sessionKeySecretArn]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:stand-in',
            [ENV.bearerOnlyRoutes]: 'POST /api/session',
          },
          encoding: 'utf8',
        });
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
      expect(stack_.split('\n')[1]).toMatch(/ at (\S+ \()?functions\/authorizer-handler\.ts:\d+:\d+\)?$/);
    });

    it('ships the OpenAPI document beside the meta bundle instead of bundling the schemas that build it', () => {
      const directory = bundleDirectory(env, 'meta');
      const bundle = readFileSync(join(directory, 'index.mjs'), 'utf8');
      // The document's own text and the schedule schema's fields are not in the bundle.
      expect(bundle).not.toContain('Scan Service API');
      expect(bundle).not.toContain('cron_expression');
      // The real bundle, loaded as Lambda loads it, serves the file with its deployment's version.
      const copy = mkdtempSync(join(repositoryRoot, 'cdk.out-openapi-'));
      try {
        cpSync(directory, copy, { recursive: true });
        const script =
          `const { handler } = await import(${JSON.stringify(pathToFileURL(join(copy, 'index.mjs')).href)});\n` +
          `const event = { version: '2.0', routeKey: 'GET /api/openapi.json', rawPath: '/api/openapi.json', rawQueryString: '', headers: {}, ` +
          `requestContext: { requestId: 'r', routeKey: 'GET /api/openapi.json', http: { method: 'GET', path: '/api/openapi.json', protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 't' } }, isBase64Encoded: false };\n` +
          `process.stdout.write(JSON.stringify(await handler(event, {})));`;
        const variables = functionResource(env, 'meta').Properties.Environment.Variables;
        const reply = JSON.parse(
          execFileSync(process.execPath, ['--input-type=module', '-e', script], {
            env: { PATH: process.env.PATH ?? '', ...variables, [ENV.allowedOrigins]: '' },
            encoding: 'utf8',
          }),
        );
        expect(reply.statusCode).toBe(200);
        expect(JSON.parse(reply.body)).toEqual(buildOpenApiDocument(variables[ENV.serviceVersion], routes));
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    });

    it('tells the meta function which scan types have a runner: every engine of layers/manifests.ts the layer serves', () => {
      expect(functionResource(env, 'meta').Properties.Environment.Variables[ENV.scanRunners]).toBe(runnerScanTypes().join(','));
      // Every scan type of every manifest (a new engine needs no edit here), the engines of this wave among them.
      expect(runnerScanTypes().sort()).toEqual(MANIFESTS.flatMap((manifest) => manifest.scanTypes).sort());
      expect(runnerScanTypes()).toEqual(expect.arrayContaining(['email_security', 'secret_scan', 'ssl', 'vapt', 'vm']));
    });

    it('points the scans function at the scan queue and the dispatch log group', () => {
      expect(functionResource(env, 'scans').Properties.Environment.Variables).toMatchObject({
        [ENV.tableName]: ref(stack, stack.storage.table),
        [ENV.scanQueueUrl]: ref(stack, stack.scheduling.scanQueue),
        [ENV.dispatchLogGroup]: ref(stack, stack.functions.dispatch.logGroup),
        [ENV.allowedOrigins]: settings.allowedOrigins.join(','),
        [ENV.scheduleQuota]: String(settings.scheduleQuota),
      });
    });
  });
});
