import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { composeNotifier } from '../../functions/notifier-composition.ts';
import { makeEventBridgePublisher } from '../../shared/adapters/eventbridge/eventbridge-event-publisher.ts';
import { NotifierConfig, readConfig } from '../../shared/config/function-config.ts';
import type { NotificationMessage } from '../../shared/ports/notification-channels.ts';
import { InMemoryNotificationRuleRepository } from '../fakes/in-memory-notification-rule-repository.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { emailRule, scanFinishedEvent } from '../helpers/service-events.ts';
import {
  DIGEST_FLUSH_MINUTE,
  NOTIFICATION_MAX_RECEIVES,
  NOTIFIER_MAX_CONCURRENCY,
  NOTIFIER_TIMEOUT,
} from '../../infra/constructs/notifications.ts';
import type { DigestFlushEvent } from '../../functions/notifier-handler.ts';
import { DIGEST_GRACE_MS } from '../../shared/services/notification-delivery.ts';
import { InMemoryDigestStore } from '../fakes/in-memory-digest-store.ts';
import { EVENT_SOURCE, EVENT_TYPES } from '../../shared/domain/notification.ts';
import {
  allStatements,
  arnOf,
  cdkContext,
  environments,
  functionResource,
  logicalId,
  ref,
  statementsOfRole,
  synthesizedStack,
  type Json,
} from './synthesized-stack.ts';

describe.each(environments)('ScanService-%s notifications', (env) => {
  const settings = cdkContext.environments[env];
  const { stack, template } = synthesizedStack(env);
  const { notifications } = stack;
  const resources: Record<string, Json> = template.toJSON().Resources;
  const resourceOf = (construct: Parameters<typeof logicalId>[1]) => resources[logicalId(stack, construct)];
  const identityArn = {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':ses:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        `:identity/${settings.notifications.senderIdentity}`,
      ],
    ],
  };

  it('has a custom bus of its own', () => {
    expect(resourceOf(notifications.bus).Properties).toMatchObject({ Name: `scan-service-${env}` });
  });

  it("routes the service's events on that bus, and nothing else, to the notification queue as {kind: event, event: detail}", () => {
    const rule = resourceOf(notifications.rule).Properties;
    expect(rule.EventBusName).toEqual(ref(stack, notifications.bus));
    expect(rule.EventPattern).toEqual({ source: [EVENT_SOURCE], 'detail-type': [...EVENT_TYPES] });
    expect(rule.Targets).toEqual([
      {
        Id: expect.any(String),
        Arn: arnOf(stack, notifications.queue),
        InputTransformer: { InputPathsMap: { detail: '$.detail' }, InputTemplate: '{"kind":"event","event":<detail>}' },
        DeadLetterConfig: { Arn: arnOf(stack, notifications.deadLetterQueue) },
      },
    ]);
  });

  it(`moves a message to the notification DLQ after ${NOTIFICATION_MAX_RECEIVES} receives, with a visibility timeout 6x the notifier's`, () => {
    expect(resourceOf(notifications.queue).Properties).toMatchObject({
      VisibilityTimeout: 6 * NOTIFIER_TIMEOUT.toSeconds(),
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: arnOf(stack, notifications.deadLetterQueue), maxReceiveCount: 5 },
    });
    expect(resourceOf(notifications.deadLetterQueue).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: settings.deadLetterRetentionDays * 86_400,
    });
  });

  it('lets only this rule send to the notification queue and its DLQ, over TLS', () => {
    const queueArns = [arnOf(stack, notifications.queue), arnOf(stack, notifications.deadLetterQueue)].map((arn) => JSON.stringify(arn));
    const grants = allStatements(template).filter(
      ({ statement }) =>
        statement.Effect === 'Allow' &&
        statement.Principal !== undefined &&
        statement.Resource.some((resource) => queueArns.includes(JSON.stringify(resource))),
    );
    const byQueue = (statement: Json) => JSON.stringify(statement.Resource);
    const fromRule = { ArnEquals: { 'aws:SourceArn': arnOf(stack, notifications.rule) } };
    const principal = { Service: 'events.amazonaws.com' };
    // The rule's target grant on the queue (Queue.grantSendMessages), and its dead-letter grant on the DLQ.
    expect(grants.map(({ statement }) => statement).sort((a, b) => byQueue(a).localeCompare(byQueue(b)))).toEqual([
      {
        Sid: expect.any(String),
        Effect: 'Allow',
        Principal: principal,
        Action: ['sqs:SendMessage'],
        Resource: [arnOf(stack, notifications.deadLetterQueue)],
        Condition: fromRule,
      },
      {
        Effect: 'Allow',
        Principal: principal,
        Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        Resource: [arnOf(stack, notifications.queue)],
        Condition: fromRule,
      },
    ]);
    for (const queue of [notifications.queue, notifications.deadLetterQueue]) {
      const denials = allStatements(template).filter(
        ({ statement }) => statement.Effect === 'Deny' && JSON.stringify(statement.Resource).includes(logicalId(stack, queue)),
      );
      expect(denials.map(({ statement }) => statement.Condition)).toEqual([{ Bool: { 'aws:SecureTransport': 'false' } }]);
    }
  });

  it('has the notifier consume the queue one record at a time, reporting failed records alone, with a concurrency cap', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter(
      (mapping: Json) => JSON.stringify(mapping.Properties.EventSourceArn) === JSON.stringify(arnOf(stack, notifications.queue)),
    );
    expect(mappings).toHaveLength(1);
    expect(mappings[0].Properties).toMatchObject({
      FunctionName: ref(stack, notifications.notifierFunction.handler),
      EventSourceArn: arnOf(stack, notifications.queue),
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: NOTIFIER_MAX_CONCURRENCY },
    });
  });

  it('configures the notifier with the table, the queue, the sender and the UI origin', () => {
    const { Environment, Timeout } = functionResource(env, 'notifier').Properties;
    expect(Timeout).toBe(NOTIFIER_TIMEOUT.toSeconds());
    expect(Environment.Variables).toMatchObject({
      TABLE_NAME: ref(stack, stack.storage.table),
      NOTIFICATION_QUEUE_URL: ref(stack, notifications.queue),
      NOTIFICATION_SENDER: settings.notifications.sender,
      APP_URL: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(stack, stack.ui.distribution), 'DomainName'] }]] },
    });
  });

  it('lets the notifier read rules, consume and send to its queue and send email as the configured identity, nothing else', () => {
    expect(statementsOfRole(template, logicalId(stack, stack.functions.notifier.role))).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: [arnOf(stack, stack.functions.notifier.logGroup)],
      },
      {
        Effect: 'Allow',
        Action: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
        Resource: [arnOf(stack, notifications.queue)],
      },
      { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: [arnOf(stack, notifications.queue)] },
      { Effect: 'Allow', Action: ['ses:SendEmail'], Resource: [identityArn] },
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchWriteItem'],
        Resource: [arnOf(stack, stack.storage.table)],
      },
    ]);
  });

  it('invokes the notifier five minutes past every hour (UTC) with the fire time, retried twice, on the default bus', () => {
    const rule = resourceOf(notifications.digestFlush).Properties;
    expect(rule).toEqual({
      Description: expect.any(String),
      ScheduleExpression: `cron(${DIGEST_FLUSH_MINUTE} * * * ? *)`,
      State: 'ENABLED',
      Tags: expect.any(Array),
      Targets: [
        {
          Id: expect.any(String),
          Arn: arnOf(stack, notifications.notifierFunction.handler),
          InputTransformer: { InputPathsMap: { time: '$.time' }, InputTemplate: '{"kind":"flush_digests","time":<time>}' },
          RetryPolicy: { MaximumRetryAttempts: 2 },
        },
      ],
    });
    expect(DIGEST_FLUSH_MINUTE).toBe(String(DIGEST_GRACE_MS / 60_000));
    // The only invoke permission from EventBridge on the notifier is this rule's.
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (permission: Json) =>
        JSON.stringify(permission.Properties.FunctionName) === JSON.stringify(arnOf(stack, notifications.notifierFunction.handler)),
    );
    expect(permissions.map((permission: Json) => permission.Properties)).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: arnOf(stack, notifications.notifierFunction.handler),
        Principal: 'events.amazonaws.com',
        SourceArn: arnOf(stack, notifications.digestFlush),
      },
    ]);
  });

  it("has the notifier, given the schedule's input as synthesized, send the digest of the hour just ended once", async () => {
    const { InputPathsMap, InputTemplate } = resourceOf(notifications.digestFlush).Properties.Targets[0].InputTransformer;
    expect(InputPathsMap).toEqual({ time: '$.time' });
    // An EventBridge scheduled event's `time` is the fire time, to the second.
    const fire = (time: string) => JSON.parse((InputTemplate as string).replace('<time>', JSON.stringify(time))) as DigestFlushEvent;
    const rules = new InMemoryNotificationRuleRepository();
    await rules.create({ ...emailRule('ntf_digest'), delivery: 'digest_hourly' });
    const digests = new InMemoryDigestStore();
    const sent: { to: string; subject: string }[] = [];
    const config = readConfig(NotifierConfig, {
      TABLE_NAME: 't',
      NOTIFICATION_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q',
      NOTIFICATION_SENDER: settings.notifications.sender,
      APP_URL: 'https://scan.example.com',
    });
    const refused = async () => {
      throw new Error('a digest rule queues no delivery');
    };
    const { handler } = composeNotifier(
      config,
      { rules, digests, queue: { send: refused }, http: { post: refused }, email: { send: async (message) => void sent.push(message) } },
      silentLogger,
    );
    // The event at 10:00 is fanned out into the digest of 10:00-11:00.
    const fanOut = await handler({
      Records: [
        {
          messageId: 'm',
          body: JSON.stringify({ kind: 'event', event: scanFinishedEvent(7) }),
          attributes: { ApproximateReceiveCount: '1' },
        },
      ],
    } as unknown as SQSEvent);

    const beforeItsEnd = await handler(fire('2026-03-02T11:04:59Z'));
    const atFivePast = await handler(fire('2026-03-02T11:05:00Z'));
    const nextHour = await handler(fire('2026-03-02T12:05:00Z'));

    expect(fanOut).toEqual({ batchItemFailures: [] });
    expect(beforeItsEnd).toEqual({ sent: 0, events: 0 });
    expect(atFivePast).toEqual({ sent: 1, events: 1 });
    expect(nextHour).toEqual({ sent: 0, events: 0 });
    expect(sent).toEqual([expect.objectContaining({ to: 'secops@example.com' })]);
    await expect(handler({ kind: 'flush_digests', time: 'yesterday' })).rejects.toThrow('not a digest flush event');
  });

  it("gives each class's dispatch the bus name, and lets only dispatch put events, on this bus only", () => {
    expect(functionResource(env, 'dispatch').Properties.Environment.Variables.EVENT_BUS_NAME).toEqual(ref(stack, notifications.bus));
    expect(functionResource(env, 'longDispatch').Properties.Environment.Variables.EVENT_BUS_NAME).toEqual(ref(stack, notifications.bus));
    expect(functionResource(env, 'dispatchDeadLetter').Properties.Environment.Variables.EVENT_BUS_NAME).toBeUndefined();
    const putters = allStatements(template).filter(({ statement }) => statement.Action.some((action) => action.startsWith('events:')));
    expect(putters).toEqual([
      {
        owner: logicalId(stack, stack.functions.dispatch.role),
        statement: { Effect: 'Allow', Action: ['events:PutEvents'], Resource: [arnOf(stack, notifications.bus)] },
      },
      {
        owner: logicalId(stack, stack.functions.longDispatch!.role),
        statement: { Effect: 'Allow', Action: ['events:PutEvents'], Resource: [arnOf(stack, notifications.bus)] },
      },
    ]);
  });

  it("lets only the notifier and the schedules function (a rule's test delivery) send email, as the sender only", () => {
    const senders = allStatements(template).filter(({ statement }) => statement.Action.some((action) => action.startsWith('ses:')));
    expect(senders.map(({ owner }) => owner).sort()).toEqual(
      [logicalId(stack, stack.functions.notifier.role), logicalId(stack, stack.functions.schedules.role)].sort(),
    );
    for (const { statement } of senders) expect(statement).toEqual({ Effect: 'Allow', Action: ['ses:SendEmail'], Resource: [identityArn] });
    expect(functionResource(env, 'schedules').Properties.Environment.Variables).toMatchObject({
      NOTIFICATION_SENDER: settings.notifications.sender,
      APP_URL: functionResource(env, 'notifier').Properties.Environment.Variables.APP_URL,
    });
  });

  it('alarms when a message waits in the notification DLQ', () => {
    expect(resourceOf(stack.alarms.node.findChild('NotificationDeadLettersWaiting')).Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, notifications.deadLetterQueue), 'QueueName'] } }],
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [ref(stack, stack.alarms.topic)],
    });
  });

  it('hands the notifier, through the rule as synthesized, exactly the event the publisher put on the bus', async () => {
    // What dispatch's publisher sends for one event.
    const entries: PutEventsRequestEntry[] = [];
    const publisher = makeEventBridgePublisher({
      busName: `scan-service-${env}`,
      logger: silentLogger,
      client: async () => ({
        send: async (command: { input: { Entries?: PutEventsRequestEntry[] } }) => {
          entries.push(...(command.input.Entries ?? []));
          return { FailedEntryCount: 0, Entries: (command.input.Entries ?? []).map(() => ({ EventId: 'e' })) };
        },
      }),
    });
    const event = scanFinishedEvent(7);
    await publisher.publish([event]);
    // What the rule matches and what its input transformer makes of the entry's detail.
    const rule = resourceOf(notifications.rule).Properties;
    const [entry] = entries;
    expect(rule.EventPattern.source).toContain(entry.Source);
    expect(rule.EventPattern['detail-type']).toContain(entry.DetailType);
    const { InputPathsMap, InputTemplate } = rule.Targets[0].InputTransformer;
    expect(InputPathsMap).toEqual({ detail: '$.detail' });
    const body = (InputTemplate as string).replace('<detail>', entry.Detail!);
    // What the notifier does with that queue message: one delivery for the matching rule.
    const rules = new InMemoryNotificationRuleRepository();
    await rules.create(emailRule('ntf_mail'));
    const queued: NotificationMessage[] = [];
    const unused = async () => {
      throw new Error('a fan-out sends nothing itself');
    };
    const config = readConfig(NotifierConfig, {
      TABLE_NAME: 't',
      NOTIFICATION_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q',
      NOTIFICATION_SENDER: settings.notifications.sender,
      APP_URL: 'https://scan.example.com',
    });
    const { handler } = composeNotifier(
      config,
      { rules, queue: { send: async (message) => void queued.push(message) }, http: { post: unused }, email: { send: unused } },
      silentLogger,
    );

    const answer = await handler({
      Records: [{ messageId: 'm', body, attributes: { ApproximateReceiveCount: '1' } }],
    } as unknown as SQSEvent);

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(queued).toEqual([{ kind: 'delivery', event, rule_id: 'ntf_mail' }]);
  });
});
