import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeDynamoDbFindingRepository } from '../../shared/adapters/dynamodb/dynamodb-finding-repository.ts';
import { makeDynamoDbIssueRepository } from '../../shared/adapters/dynamodb/dynamodb-issue-repository.ts';
import type { FindingRecord } from '../../shared/domain/finding.ts';

const TABLE = 'scan-service';

function finding(n: number): FindingRecord {
  return {
    id: `fnd_${n}`,
    tenant: 'acme',
    scan_id: 'scan_A',
    schedule_id: null,
    scan_type: 'email_security',
    target: 'example.com',
    rule_id: 'rule.0',
    subject: '',
    severity: 'low',
    title: 't',
    description: 'd',
    evidence: {},
    remediation: 'r',
    fingerprint: n.toString(16).padStart(64, '0'),
    first_seen_at: '2026-03-02T09:00:00.000Z',
    last_seen_at: '2026-03-02T10:00:00.000Z',
    created_at: '2026-03-02T10:00:00.000Z',
  };
}

/**
 * What DynamoDB leaves unprocessed is sent again with backoff (lib/retry.ts), at
 * most 8 calls per batch; the backoff runs on fake timers, so nothing here waits.
 */
describe('DynamoDB batches (findings, issues)', () => {
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
  const api = mockClient(documents);
  const repo = makeDynamoDbFindingRepository(documents, TABLE);
  // Issues read by id through the same batch helper (batch-requests.ts).
  const issues = makeDynamoDbIssueRepository(documents, TABLE);

  beforeEach(() => {
    api.reset();
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the items a BatchWriteItem left unprocessed again until none is left', async () => {
    const leftOver = { PutRequest: { Item: { PK: 'T#acme', SK: 'FND#fnd_1' } } };
    api
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [TABLE]: [leftOver] } })
      .resolves({});

    const saving = repo.save('acme', [finding(1), finding(2)]);
    await vi.runAllTimersAsync();
    await saving;

    const calls = api.commandCalls(BatchWriteCommand);
    expect(calls.map((call) => call.args[0].input.RequestItems?.[TABLE]?.length)).toEqual([2, 1]);
    expect(calls[1].args[0].input.RequestItems?.[TABLE]).toEqual([leftOver]);
  });

  it('gives up after 8 calls that each leave items unprocessed, saying how many', async () => {
    api.on(BatchWriteCommand).callsFake(({ RequestItems }) => ({ UnprocessedItems: { [TABLE]: RequestItems[TABLE] } }));

    const saving = repo.save('acme', [finding(1)]);
    const outcome = expect(saving).rejects.toThrow('BatchWriteItem left 1 items unprocessed');
    await vi.runAllTimersAsync();
    await outcome;

    expect(api.commandCalls(BatchWriteCommand)).toHaveLength(8);
  });

  it('asks again for the keys a BatchGetItem left unprocessed and reads what they hold', async () => {
    const key = { PK: 'T#acme', SK: 'ISS#iss_b' };
    api
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [TABLE]: [{ ...key, id: 'iss_a' }] }, UnprocessedKeys: { [TABLE]: { Keys: [key] } } })
      .resolves({ Responses: { [TABLE]: [{ ...key, id: 'iss_b' }] } });

    const reading = issues.getMany('acme', ['iss_a', 'iss_b']);
    await vi.runAllTimersAsync();

    expect((await reading).map((issue) => issue.id)).toEqual(['iss_a', 'iss_b']);
    expect(api.commandCalls(BatchGetCommand)[1].args[0].input.RequestItems?.[TABLE]?.Keys).toEqual([key]);
  });

  it('does not retry a call that failed: the SDK already retried it', async () => {
    api.on(BatchWriteCommand).rejects(new Error('ProvisionedThroughputExceededException'));

    await expect(repo.save('acme', [finding(1)])).rejects.toThrow('ProvisionedThroughputExceededException');
    expect(api.commandCalls(BatchWriteCommand)).toHaveLength(1);
  });
});
