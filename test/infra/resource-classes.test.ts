import { describe, expect, it } from 'vitest';
import { MANIFESTS } from '../../layers/manifests.ts';
import { ENV } from '../../shared/config/environment.ts';
import { RESOURCE_CLASSES, deployedResourceClasses } from '../../shared/domain/resource-class.ts';
import { ephemeralStorageMib } from '../../infra/constructs/dispatch.ts';
import { arnOf, cdkContext, environments, functionResource, logicalId, synthesizedStack, type Json } from './synthesized-stack.ts';

// DESIGN §11 resource classes in the synthesized stack (docs/resource-classes.md): one scan queue,
// DLQ and dispatch function per class a manifest names, each function sized by its class and
// consuming its own queue only.

describe.each(environments)('resource classes in ScanService-%s', (env) => {
  const settings = cdkContext.environments[env];
  const { stack, template } = synthesizedStack(env);
  const resources: Record<string, Json> = template.toJSON().Resources;

  it('builds a queue, a DLQ and a dispatch function for every class the manifests name, standard included', () => {
    const named = new Set(MANIFESTS.map((manifest) => manifest.resourceClass));
    expect(named).toContain('long'); // llmscan's: without a long engine the stack would have no long class
    expect([...stack.scheduling.classQueues.keys()]).toEqual(deployedResourceClasses());
    expect([...stack.dispatch.dispatchFunctions.keys()]).toEqual(deployedResourceClasses());
    expect(deployedResourceClasses()).toEqual(['standard', 'long']);
  });

  it.each([
    ['dispatch', 'standard', 1024, 300, 2048],
    ['longDispatch', 'long', 3072, 900, 4096],
  ] as const)('sizes the %s function by its class %s: %i MB, %i s, %i MiB of /tmp', (fn, resourceClass, memory, timeout, tmp) => {
    const props = functionResource(env, fn).Properties;
    expect(props.MemorySize).toBe(memory);
    expect(props.MemorySize).toBe(RESOURCE_CLASSES[resourceClass].memoryMb);
    expect(props.Timeout).toBe(timeout);
    expect(props.EphemeralStorage).toEqual({ Size: tmp });
    expect(tmp).toBe(ephemeralStorageMib(resourceClass));
    expect(props.Environment.Variables[ENV.resourceClass]).toBe(resourceClass);
  });

  it("feeds each class's dispatch function from its own queue only, one scan at a time, at its class's cap", () => {
    for (const [name, fn] of stack.dispatch.dispatchFunctions) {
      const mappings = Object.values<Json>(template.findResources('AWS::Lambda::EventSourceMapping'))
        .map((mapping) => mapping.Properties)
        .filter((mapping) => mapping.FunctionName.Ref === logicalId(stack, fn.handler));
      expect(mappings).toEqual([
        expect.objectContaining({
          EventSourceArn: arnOf(stack, stack.scheduling.classQueues.get(name)!.queue),
          BatchSize: 1,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ScalingConfig: { MaximumConcurrency: name === 'long' ? settings.dispatch.longMaxConcurrency : settings.dispatch.maxConcurrency },
        }),
      ]);
    }
  });

  it("keeps the long queue invisible for 6x its function's 900 s and redrives it to its own DLQ", () => {
    const { queue, deadLetterQueue } = stack.scheduling.classQueues.get('long')!;
    expect(resources[logicalId(stack, queue)].Properties).toMatchObject({
      VisibilityTimeout: 5400,
      MessageRetentionPeriod: settings.scanQueue.retentionDays * 86_400,
      RedrivePolicy: { deadLetterTargetArn: arnOf(stack, deadLetterQueue), maxReceiveCount: settings.scanQueue.maxReceiveCount },
    });
    expect(deadLetterQueue).not.toBe(stack.scheduling.scanDeadLetterQueue);
  });

  it("gives the trigger managers every class's queue ARN and the scans function every class's queue URL and log group", () => {
    const long = stack.scheduling.classQueues.get('long')!.queue;
    for (const fn of ['schedules', 'reconcile'] as const) {
      expect(functionResource(env, fn).Properties.Environment.Variables).toMatchObject({
        SCAN_QUEUE_ARN: arnOf(stack, stack.scheduling.scanQueue),
        SCAN_QUEUE_ARN_LONG: arnOf(stack, long),
      });
    }
    expect(functionResource(env, 'scans').Properties.Environment.Variables).toMatchObject({
      SCAN_QUEUE_URL: { Ref: logicalId(stack, stack.scheduling.scanQueue) },
      SCAN_QUEUE_URL_LONG: { Ref: logicalId(stack, long) },
      DISPATCH_LOG_GROUP: { Ref: logicalId(stack, stack.functions.dispatch.logGroup) },
      DISPATCH_LOG_GROUP_LONG: { Ref: logicalId(stack, stack.functions.longDispatch!.logGroup) },
    });
  });
});
