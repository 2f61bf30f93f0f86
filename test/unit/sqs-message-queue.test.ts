import { QueueDoesNotExist, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { SqsMessageQueue } from '../../shared/adapters/sqs/sqs-message-queue.ts';
import { DispatchFailedError } from '../../shared/domain/errors.ts';
import type { QueueMessage } from '../../shared/domain/messages.ts';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/scan-queue';

function makeQueue() {
  const client = new SQSClient({ region: 'eu-west-1' });
  const api = mockClient(client);
  const warnings: { message: string; attributes: Record<string, unknown> }[] = [];
  const queue = new SqsMessageQueue({
    client,
    queueUrl: QUEUE_URL,
    logger: { warn: (message, attributes) => warnings.push({ message, attributes }) },
  });
  return { api, queue, warnings };
}

describe('SqsMessageQueue', () => {
  let api: ReturnType<typeof makeQueue>['api'];
  let queue: SqsMessageQueue;
  let warnings: ReturnType<typeof makeQueue>['warnings'];

  beforeEach(() => {
    ({ api, queue, warnings } = makeQueue());
  });

  afterEach(() => {
    api.restore();
  });

  it('sends a scan message as its JSON body to the queue URL', async () => {
    api.on(SendMessageCommand).resolves({ MessageId: 'm-1' });

    await queue.send({ kind: 'scan', tenant: 'acme', scan_id: 'scan_01A' });

    expect(api.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, MessageBody: '{"kind":"scan","tenant":"acme","scan_id":"scan_01A"}' },
    ]);
  });

  it('sends a fire message with its fields in the documented order', async () => {
    api.on(SendMessageCommand).resolves({ MessageId: 'm-1' });

    await queue.send({ kind: 'fire', tenant: 'acme', schedule_id: 'sch_01A', scheduled_time: '2025-01-01T02:00:00Z', execution_id: 'e-1' });

    expect(api.commandCalls(SendMessageCommand)[0].args[0].input.MessageBody).toBe(
      '{"kind":"fire","tenant":"acme","schedule_id":"sch_01A","scheduled_time":"2025-01-01T02:00:00Z","execution_id":"e-1"}',
    );
  });

  it('throws DispatchFailedError naming SendMessage, without the SDK message, when SQS refuses', async () => {
    api
      .on(SendMessageCommand)
      .rejects(new QueueDoesNotExist({ message: 'arn:aws:sqs:eu-west-1:123456789012:scan-queue does not exist', $metadata: {} }));

    const error = await queue.send({ kind: 'scan', tenant: 'acme', scan_id: 'scan_01A' }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(DispatchFailedError);
    expect((error as Error).message).toBe('SQS SendMessage failed (QueueDoesNotExist)');
    expect(warnings).toEqual([
      { message: 'queue send failed', attributes: expect.objectContaining({ operation: 'SendMessage', error: 'QueueDoesNotExist' }) },
    ]);
  });

  it('refuses a message outside the schema before calling SQS', async () => {
    await expect(queue.send({ kind: 'scan', tenant: 'acme' } as unknown as QueueMessage)).rejects.toBeInstanceOf(ZodError);

    expect(api.commandCalls(SendMessageCommand)).toHaveLength(0);
  });
});
