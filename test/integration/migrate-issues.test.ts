/**
 * scripts/migrate-issues.ts on a copy of a table holding the duplicate pairs (test/fixtures/issues/
 * duplicate-pairs.json), in dynalite: the dry run prints the plan and writes nothing; the run
 * merges each pair into one issue that keeps the person's decision, the earliest first seen and
 * every occurrence, fills subjects, and a second run finds nothing to do.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, type LocalDynamo } from '../../local/dynalite.ts';
import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbFindingRepository } from '../../shared/adapters/dynamodb/dynamodb-finding-repository.ts';
import { makeDynamoDbIssueRepository } from '../../shared/adapters/dynamodb/dynamodb-issue-repository.ts';
import { issueKeys, keys } from '../../shared/adapters/dynamodb/keys.ts';
import type { IssueRecord } from '../../shared/domain/issue.ts';
import { issueRecord } from '../helpers/issue-records.ts';

const run = promisify(execFile);
const TABLE = 'copy-of-prod';

type FixtureIssue = Partial<IssueRecord> & { id: string; fingerprint: string; evidence: Record<string, unknown> };

describe('scripts/migrate-issues.ts on a copy of a table with duplicate pairs', () => {
  let dynamo: LocalDynamo;
  const client = () => makeDocumentClient(dynamo.clientConfig);
  const script = (...args: string[]) =>
    run(process.execPath, [
      '--import',
      'tsx',
      'scripts/migrate-issues.ts',
      '--table',
      TABLE,
      '--endpoint',
      dynamo.clientConfig.endpoint,
      ...args,
    ]);
  const tableItems = async () => (await client().send(new ScanCommand({ TableName: TABLE }))).Items ?? [];

  beforeAll(async () => {
    dynamo = await startDynalite({ tableName: TABLE });
    const fixture = JSON.parse(await readFile('test/fixtures/issues/duplicate-pairs.json', 'utf8')) as { issues: FixtureIssue[] };
    const documents = client();
    const issues = makeDynamoDbIssueRepository(documents, TABLE);
    const findings = makeDynamoDbFindingRepository(documents, TABLE);
    for (const [n, { evidence, ...fields }] of fixture.issues.entries()) {
      const issue = issueRecord('acme', n + 1, { ...fields, last_scan_id: `scan_01HZ00000000000000000000${n}0` });
      await issues.save('acme', [issue]);
      // Stored as before subjects: the attributes the tracker now keeps are absent.
      await documents.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: { PK: keys.tenant('acme'), SK: issueKeys.issue(issue.id) },
          UpdateExpression: 'REMOVE subject, locations, scan_types',
        }),
      );
      await findings.save('acme', [
        {
          id: `fnd_${n}`,
          tenant: 'acme',
          scan_id: issue.last_scan_id,
          schedule_id: null,
          scan_type: issue.scan_type,
          target: issue.target,
          rule_id: issue.rule_id,
          subject: '',
          severity: issue.severity,
          title: issue.title,
          description: '',
          evidence,
          remediation: '',
          fingerprint: issue.fingerprint,
          first_seen_at: issue.first_seen_at,
          last_seen_at: issue.last_seen_at,
          created_at: issue.last_seen_at,
        },
      ]);
    }
  }, 60_000);

  afterAll(async () => {
    await dynamo?.close();
  });

  it('prints the plan on a dry run and writes nothing, then merges each pair keeping the decision', async () => {
    const before = await tableItems();

    const dry = await script('--dry-run');

    expect(await tableItems()).toEqual(before);
    if (process.env.SHOW_MIGRATION) process.stdout.write(dry.stdout);
    expect(dry.stdout).toContain('merge acme iss_b0000000000000000000000000000002');
    expect(dry.stdout).toContain('into iss_a0000000000000000000000000000001');
    expect(dry.stdout).toContain('dry run: would write 4 issues, would delete 2');

    const real = await script();
    const issues = makeDynamoDbIssueRepository(client(), TABLE);
    const redis = await issues.get('acme', 'iss_a0000000000000000000000000000001');
    const tls = await issues.get('acme', 'iss_c0000000000000000000000000000003');

    expect(real.stdout).toContain('wrote 4 issues, deleted 2');
    expect(await issues.get('acme', 'iss_b0000000000000000000000000000002')).toBeNull();
    expect(await issues.get('acme', 'iss_d0000000000000000000000000000004')).toBeNull();
    expect(redis).toMatchObject({
      status: 'accepted_risk',
      status_reason: 'lab box behind the VPN',
      status_changed_by: 'alice@example.test',
      first_seen_at: '2026-01-05T09:00:00.000Z',
      last_seen_at: '2026-03-09T09:00:00.000Z',
      occurrence_count: 11,
      subject: '10.0.0.5:6379',
      locations: ['tcp:10.0.0.5:6379'],
      scan_types: ['vm', 'vapt'],
    });
    expect(tls).toMatchObject({ status: 'false_positive', occurrence_count: 5, subject: 'shop.example.test:8443' });
    expect(await issues.get('acme', 'iss_f0000000000000000000000000000006')).toMatchObject({ subject: 'deploy/.env:3', locations: [] });
    expect((await script('--dry-run')).stdout).toContain('dry run: would write 0 issues, would delete 0');
  });
});
