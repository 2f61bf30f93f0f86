/**
 * Brings stored issues to one issue per (tenant, target, rule, subject) (DESIGN §15, docs/issues.md):
 *
 *   npx tsx scripts/migrate-issues.ts --table NAME [--endpoint URL] [--dry-run]
 *
 * 1. Every issue gets the fields the tracker now keeps: `subject` (from its newest occurrence's
 *    stored subject, else its evidence: endpoint, address:port, path:line), `locations` (the
 *    places a check must cover to resolve it; left empty where the evidence cannot say, e.g. a
 *    secret's branch, so such an issue waits for its next sighting rather than resolve on a guess)
 *    and `scan_types`.
 * 2. Issues that are one problem under two ids (the same target in any spelling, rule and
 *    subject) merge into the oldest: first seen the earliest, occurrences summed, last seen the
 *    latest, scan types and locations joined, and a person's decision (accepted risk, false
 *    positive; the latest if both have one) kept over a scan's status. The others are deleted.
 *
 * `--dry-run` reads everything and prints the plan, writing nothing. Safe to run again: a second
 * run finds nothing to do. Run it with the scans stopped (a scan that read an issue before the
 * merge would write it back).
 */
import { parseArgs } from 'node:util';
import { DeleteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbFindingRepository } from '../shared/adapters/dynamodb/dynamodb-finding-repository.ts';
import { makeDynamoDbIssueRepository } from '../shared/adapters/dynamodb/dynamodb-issue-repository.ts';
import { issueKeys, keys } from '../shared/adapters/dynamodb/keys.ts';
import type { FindingRecord } from '../shared/domain/finding.ts';
import { identityOf, LOCATIONS_KEPT } from '../shared/domain/issue-tracking.ts';
import type { IssueRecord } from '../shared/domain/issue.ts';

/** What one issue's newest occurrence says about where it is. */
export function placeOf(finding: FindingRecord | undefined): { subject: string; locations: string[] } {
  if (!finding) return { subject: '', locations: [] };
  const evidence = finding.evidence;
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);
  const endpoint = text(evidence.endpoint);
  const address = text(evidence.address);
  const port = text(evidence.port);
  if (endpoint) return { subject: finding.subject || endpoint, locations: [`tcp:${endpoint}`] };
  if (address && port) {
    const where = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
    return { subject: finding.subject || where, locations: [`tcp:${where}`] };
  }
  const path = text(evidence.path);
  const line = text(evidence.line);
  // A secret's branch is not in its evidence: no locations, so only its next sighting (which
  // names them) lets a scan resolve it.
  if (path && line) return { subject: finding.subject || `${path}:${line}`, locations: [] };
  return { subject: finding.subject ?? '', locations: [] };
}

export interface MigrationPlan {
  /** Issues whose fields are filled or merged: written whole. */
  writes: IssueRecord[];
  /** Issues merged into another: deleted. */
  deletes: { tenant: string; id: string; into: string }[];
  /** One line per change, for people. */
  lines: string[];
}

const DECIDED = new Set(['accepted_risk', 'false_positive']);

/** Merges one problem's issues into the oldest (see the file's comment). */
function merge(group: IssueRecord[]): IssueRecord {
  const sorted = [...group].sort((a, b) => a.first_seen_at.localeCompare(b.first_seen_at) || a.id.localeCompare(b.id));
  const [survivor] = sorted;
  const decided = sorted
    .filter((issue) => DECIDED.has(issue.status))
    .sort((a, b) => (b.status_changed_at ?? '').localeCompare(a.status_changed_at ?? ''))[0];
  const latest = [...sorted].sort((a, b) => b.last_seen_at.localeCompare(a.last_seen_at))[0];
  const status = decided?.status ?? (sorted.some((issue) => issue.status === 'open') ? 'open' : latest.status);
  return {
    ...survivor,
    status,
    status_reason: decided?.status_reason ?? survivor.status_reason,
    status_until: decided?.status_until ?? (status === survivor.status ? survivor.status_until : null),
    status_changed_at: decided?.status_changed_at ?? survivor.status_changed_at,
    status_changed_by: decided?.status_changed_by ?? survivor.status_changed_by,
    resolved_at: status === 'resolved' ? latest.resolved_at : null,
    resolved_scan_id: status === 'resolved' ? latest.resolved_scan_id : null,
    last_seen_at: latest.last_seen_at,
    last_scan_id: latest.last_scan_id,
    severity: latest.severity,
    title: latest.title,
    occurrence_count: sorted.reduce((sum, issue) => sum + issue.occurrence_count, 0),
    reopened_count: sorted.reduce((sum, issue) => sum + issue.reopened_count, 0),
    scan_types: [...new Set(sorted.flatMap((issue) => issue.scan_types ?? [issue.scan_type]))],
    locations: [...new Set(sorted.flatMap((issue) => issue.locations ?? []))].slice(0, LOCATIONS_KEPT),
    counted_scan_ids: [...new Set(sorted.flatMap((issue) => issue.counted_scan_ids))].sort().slice(-8),
    version: survivor.version + 1,
  };
}

/** The plan for `issues` (every issue of the table), given each issue's newest occurrence. */
export function planIssueMigration(
  issues: readonly IssueRecord[],
  newest: ReadonlyMap<string, FindingRecord>,
  /** Issues stored before subjects: the fields to fill. */
  unfilled: ReadonlySet<string>,
): MigrationPlan {
  const plan: MigrationPlan = { writes: [], deletes: [], lines: [] };
  const filled = issues.map((issue) => {
    const needs = unfilled.has(issue.id);
    if (!needs) return { issue, changed: false };
    const place = placeOf(newest.get(issue.id));
    return {
      issue: {
        ...issue,
        subject: issue.subject || place.subject,
        locations: issue.locations?.length ? issue.locations : place.locations,
        scan_types: issue.scan_types ?? [issue.scan_type],
      },
      changed: true,
    };
  });
  const groups = new Map<string, { issue: IssueRecord; changed: boolean }[]>();
  for (const entry of filled) {
    // An issue whose subject nobody can say stays alone: merging on the target and rule alone would join different problems.
    const key = entry.issue.subject
      ? `${entry.issue.tenant}\u0000${identityOf(entry.issue)}`
      : `${entry.issue.tenant}\u0000${entry.issue.id}`;
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(entry);
  }
  for (const group of groups.values()) {
    if (group.length === 1) {
      const [{ issue, changed }] = group;
      if (changed) {
        plan.writes.push({ ...issue, version: issue.version + 1 });
        plan.lines.push(`fill ${issue.tenant} ${issue.id} subject="${issue.subject}" locations=${issue.locations.length}`);
      }
      continue;
    }
    const merged = merge(group.map((entry) => entry.issue));
    plan.writes.push(merged);
    for (const { issue } of group) {
      if (issue.id === merged.id) continue;
      plan.deletes.push({ tenant: issue.tenant, id: issue.id, into: merged.id });
    }
    const others = group
      .filter(({ issue }) => issue.id !== merged.id)
      .map(({ issue }) => `${issue.id} (${issue.status}, ${issue.scan_type}, "${issue.target}")`);
    plan.lines.push(
      `merge ${merged.tenant} ${others.join(', ')} into ${merged.id}: ${merged.rule_id} at "${merged.subject}", status ${merged.status}, first seen ${merged.first_seen_at}, ${merged.occurrence_count} occurrences, scan types ${merged.scan_types.join('+')}`,
    );
  }
  return plan;
}

/** Every issue item of the table (a Scan: a one-off job over the whole table), and those stored before subjects. */
async function readIssues(client: DynamoDBDocumentClient, tableName: string): Promise<{ found: IssueRecord[]; unfilled: Set<string> }> {
  const repo = makeDynamoDbIssueRepository(client, tableName);
  const found: IssueRecord[] = [];
  const unfilled = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(SK, :iss)',
        ExpressionAttributeValues: { ':iss': 'ISS#' },
        ProjectionExpression: 'tenant, id, subject, locations, scan_types',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const issue = await repo.get(item.tenant as string, item.id as string);
      if (!issue) continue;
      found.push({ ...issue, tenant: item.tenant as string });
      if (item.subject === undefined || item.locations === undefined || item.scan_types === undefined) unfilled.add(issue.id);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return { found, unfilled };
}

/** Reads, plans, and (unless `dryRun`) writes; returns the plan. */
export async function migrateIssues(
  client: DynamoDBDocumentClient,
  tableName: string,
  { dryRun }: { dryRun: boolean },
): Promise<MigrationPlan> {
  const { found: issues, unfilled } = await readIssues(client, tableName);
  const findings = makeDynamoDbFindingRepository(client, tableName);
  const newest = new Map<string, FindingRecord>();
  for (const issue of issues) {
    if (!unfilled.has(issue.id)) continue;
    const [latest] = await findings.occurrences(issue.tenant, issue.fingerprint, 1);
    if (latest) newest.set(issue.id, latest);
  }
  const plan = planIssueMigration(issues, newest, unfilled);
  if (dryRun) return plan;
  const repo = makeDynamoDbIssueRepository(client, tableName);
  const byTenant = new Map<string, IssueRecord[]>();
  for (const issue of plan.writes) (byTenant.get(issue.tenant) ?? byTenant.set(issue.tenant, []).get(issue.tenant)!).push(issue);
  for (const [tenant, writes] of byTenant) await repo.save(tenant, writes);
  for (const gone of plan.deletes) {
    await client.send(new DeleteCommand({ TableName: tableName, Key: { PK: keys.tenant(gone.tenant), SK: issueKeys.issue(gone.id) } }));
  }
  return plan;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { table: { type: 'string' }, endpoint: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
  });
  if (!values.table) {
    process.stderr.write('usage: migrate-issues --table NAME [--endpoint URL] [--dry-run]\n');
    process.exitCode = 2;
    return;
  }
  const local = { endpoint: values.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const client = makeDocumentClient(values.endpoint ? local : {});
  const plan = await migrateIssues(client, values.table, { dryRun: values['dry-run'] });
  for (const line of plan.lines) process.stdout.write(`${line}\n`);
  process.stdout.write(
    `${values['dry-run'] ? 'dry run: would write' : 'wrote'} ${plan.writes.length} issues, ${values['dry-run'] ? 'would delete' : 'deleted'} ${plan.deletes.length}\n`,
  );
  client.destroy();
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
