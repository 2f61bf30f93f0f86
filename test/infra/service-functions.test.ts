import { describe, expect, it } from 'vitest';
import { ENV } from '../../shared/config/environment.ts';
import { arnOf, cdkContext, environments, functionResource, logicalId, ref, synthesizedStack, type Json } from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const group = settings.scheduleGroupName;
  const { stack, template } = synthesizedStack(env);

  describe('functions', () => {
    it('runs every function on nodejs24.x and arm64', () => {
      const functions = Object.values<Json>(template.findResources('AWS::Lambda::Function'));
      // Seven service functions, the artifact check, and the session key's rotation function.
      expect(functions).toHaveLength(9);
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
      for (const fn of Object.values(stack.functions)) {
        const resource = template.toJSON().Resources[logicalId(stack, fn.handler)];
        expect(resource.Properties.LoggingConfig).toEqual({ LogGroup: ref(stack, fn.logGroup) });
      }
    });

    it('sets exactly the environment each function reads', () => {
      const powertools = ['POWERTOOLS_SERVICE_NAME', 'LOG_LEVEL', 'NODE_OPTIONS', ENV.environment, ENV.serviceVersion];
      const triggers = [ENV.tableName, ENV.scheduleGroupName, ENV.scanQueueArn, ENV.schedulerRoleArn, ENV.schedulerDlqArn];
      const expected = {
        schedules: [...powertools, ...triggers, ENV.allowedOrigins, ENV.scheduleQuota, ENV.allowPrivateTargets],
        scans: [
          ...powertools,
          ENV.tableName,
          ENV.scanQueueUrl,
          ENV.dispatchLogGroup,
          ENV.allowedOrigins,
          ENV.scheduleQuota,
          ENV.allowPrivateTargets,
          ENV.artifactBucket,
        ],
        reconcile: [...powertools, ...triggers],
        meta: [...powertools, ENV.allowedOrigins, ENV.scanRunners],
        authorizer: [...powertools, ENV.sessionKeySecretArn],
        dispatch: [...powertools, ENV.tableName, ENV.mailscanBin, ENV.artifactBucket, ENV.operatorKeysSecretArn],
        artifactCheck: [...powertools, ENV.tableName, ENV.artifactBucket],
        dispatchDeadLetter: [...powertools, ENV.tableName],
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

    it('tells the meta function that email_security has a runner, the one the mailscan layer serves', () => {
      expect(functionResource(env, 'meta').Properties.Environment.Variables[ENV.scanRunners]).toBe('email_security');
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
