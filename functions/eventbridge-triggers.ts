import { EventBridgeTriggerScheduler } from '../shared/adapters/eventbridge/eventbridge-trigger-scheduler.ts';
import { makeSchedulerClient } from '../shared/adapters/eventbridge/scheduler-client.ts';
import { byResourceClass, type TriggerConfig } from '../shared/config/function-config.ts';
import { ENV } from '../shared/config/environment.ts';
import type { Logger } from '../shared/ports/logger.ts';

/** The EventBridge Scheduler adapter as the schedules and reconcile functions configure it. */
export function makeEventBridgeTriggers(config: TriggerConfig, logger: Logger): EventBridgeTriggerScheduler {
  return new EventBridgeTriggerScheduler({
    client: makeSchedulerClient(),
    groupName: config.SCHEDULE_GROUP_NAME,
    queueArn: config.SCAN_QUEUE_ARN,
    // Each other resource class's queue (SCAN_QUEUE_ARN_LONG): a trigger targets its type's class queue.
    classQueueArns: byResourceClass(config, ENV.scanQueueArn),
    roleArn: config.SCHEDULER_ROLE_ARN,
    deadLetterArn: config.SCHEDULER_DLQ_ARN,
    logger,
  });
}
