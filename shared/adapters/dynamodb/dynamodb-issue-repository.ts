import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../domain/errors.ts';
import { severityRank } from '../../../lib/severity.ts';
import { ISSUE_STATUSES, issueSortKey, targetKey, type IssueRecord } from '../../domain/issue.ts';
import { rulesMatching } from '../../domain/rule-ids.ts';
import type { IssueFilter, IssueRepository } from '../../ports/issue-repository.ts';
import { queryAll } from './all-items.ts';
import { batchGet, batchWrite } from './batch-requests.ts';
import { decodeIssueCursor, encodeIssueCursor } from './issue-cursor.ts';
import { keys, issueKeys } from './keys.ts';
import { targetDigest } from './target-digest.ts';

const FIELDS = [
  'id',
  'tenant',
  'fingerprint',
  'status',
  'scan_type',
  'scan_types',
  'target',
  'rule_id',
  'subject',
  'severity',
  'title',
  'first_seen_at',
  'last_seen_at',
  'occurrence_count',
  'reopened_count',
  'last_scan_id',
  'schedule_id',
  'resolved_at',
  'resolved_scan_id',
  'status_reason',
  'status_until',
  'status_changed_at',
  'status_changed_by',
  'assignee',
  'updated_at',
  'version',
  'evaluated_scan_id',
  'evaluated_change',
  'counted_scan_ids',
  'locations',
  'history',
  'comments',
] as const satisfies readonly (keyof IssueRecord)[];

/** Issues written before subjects (docs/issues.md: scripts/migrate-issues.ts fills them) read with defaults. */
function fromItem(item: Record<string, unknown>): IssueRecord {
  const issue = Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as IssueRecord;
  issue.subject ??= '';
  issue.locations ??= [];
  issue.scan_types ??= [issue.scan_type];
  issue.history ??= [];
  issue.comments ??= [];
  return issue;
}

/** The item of an issue, with its place in the three index partitions it belongs to. */
function itemOf(issue: IssueRecord): Record<string, unknown> {
  const sortKey = issueSortKey(issue);
  return {
    PK: keys.tenant(issue.tenant),
    SK: issueKeys.issue(issue.id),
    GSI1PK: issueKeys.byStatus(issue.tenant, issue.status),
    GSI1SK: sortKey,
    GSI2PK: issueKeys.byTarget(issue.tenant, targetDigest(issue.target)),
    GSI2SK: sortKey,
    GSI3PK: issueKeys.byRule(issue.tenant, issue.rule_id),
    GSI3SK: sortKey,
    ...issue,
  };
}

type IndexName = 'GSI1' | 'GSI2' | 'GSI3';

/** One index partition a listing reads, with the conditions the partition does not already imply. */
interface Source {
  index: IndexName;
  partition: string;
  conditions: string[];
}

/** A filter's expression parts, built once and shared by every source of one listing. */
class Expression {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  name(attribute: string): string {
    this.names[`#${attribute}`] = attribute;
    return `#${attribute}`;
  }
  value(key: string, value: unknown): string {
    this.values[`:${key}`] = value;
    return `:${key}`;
  }
}

/** Rule partitions probed at once by rulesPresent. */
const RULE_PROBES = 8;

/** Requests one source may make for one page: a sparse filter stops here with a cursor, it never reads the partition through. */
const READS_PER_SOURCE = 4;

/**
 * Issues in the single table (docs/issues.md). Every listing is answered from index partitions
 * whose sort key is the listing order (severity, then last seen, then id): by target (GSI2), by
 * rule (GSI3, one partition per rule the filter names) or by status (GSI1, one partition per
 * status the filter means); severity narrows the key condition; the rest are filter expressions.
 * Several partitions are merged in order, and the cursor is the position reached (one sort key),
 * which is a valid start in every partition of the listing.
 */
export function makeDynamoDbIssueRepository(client: DynamoDBDocumentClient, tableName: string): IssueRepository {
  function sourcesFor(tenant: string, filter: IssueFilter, expression: Expression): Source[] {
    const common: string[] = [];
    if (filter.scanType !== undefined) {
      // Any scan type that has seen it; issues written before scan_types by their first.
      const wanted = expression.value('scan_type', filter.scanType);
      common.push(`(${expression.name('scan_type')} = ${wanted} OR contains(${expression.name('scan_types')}, ${wanted}))`);
    }
    if (filter.scheduleId !== undefined)
      common.push(`${expression.name('schedule_id')} = ${expression.value('schedule_id', filter.scheduleId)}`);
    if (filter.firstSeenBefore !== undefined) {
      // Overdue: per severity, first seen before that severity's bound; an SLA without days for a
      // severity has no bound for it (the service asks nothing when no severity has one). AND binds
      // tighter than OR, and DynamoDB refuses the parentheses that would say so.
      const bounds = Object.entries(filter.firstSeenBefore).map(
        ([severity, bound], i) =>
          `${expression.name('severity')} = ${expression.value(`due_sev${i}`, severity)} AND ${expression.name('first_seen_at')} < ${expression.value(`due_before${i}`, bound)}`,
      );
      common.push(`(${bounds.join(' OR ')})`);
    }
    const status = expression.name('status');
    const until = expression.name('status_until');
    const now = () => expression.value('now', filter.now);
    // An accepted risk past `until` reads as open (effectiveStatus).
    const statusCondition = (wanted: IssueRecord['status']): string => {
      if (wanted === 'open')
        return `(${status} = ${expression.value('open', 'open')} OR (${status} = ${expression.value('accepted', 'accepted_risk')} AND ${until} <= ${now()}))`;
      if (wanted === 'accepted_risk')
        return `(${status} = ${expression.value('accepted', 'accepted_risk')} AND NOT (${until} <= ${now()}))`;
      return `${status} = ${expression.value(wanted, wanted)}`;
    };
    // The same rules as the rule partitions below: those rulesMatching names (IN takes up to 100).
    const ruleCondition = () =>
      `${expression.name('rule_id')} IN (${rulesMatching(filter.ruleId!)
        .slice(0, 100)
        .map((ruleId, i) => expression.value(`rule${i}`, ruleId))
        .join(', ')})`;

    if (filter.target !== undefined) {
      const conditions = [...common];
      if (filter.status !== undefined) conditions.push(statusCondition(filter.status));
      if (filter.ruleId !== undefined) conditions.push(ruleCondition());
      return [{ index: 'GSI2', partition: issueKeys.byTarget(tenant, targetDigest(filter.target)), conditions }];
    }
    if (filter.ruleId !== undefined) {
      const conditions = [...common];
      if (filter.status !== undefined) conditions.push(statusCondition(filter.status));
      return rulesMatching(filter.ruleId).map((ruleId) => ({ index: 'GSI3', partition: issueKeys.byRule(tenant, ruleId), conditions }));
    }
    const partition = (stored: IssueRecord['status'], extra: string[] = []): Source => ({
      index: 'GSI1',
      partition: issueKeys.byStatus(tenant, stored),
      conditions: [...common, ...extra],
    });
    if (filter.status === 'open') return [partition('open'), partition('accepted_risk', [`${until} <= ${now()}`])];
    if (filter.status === 'accepted_risk') return [partition('accepted_risk', [`NOT (${until} <= ${now()})`])];
    if (filter.status !== undefined) return [partition(filter.status)];
    return ISSUE_STATUSES.map((stored) => partition(stored));
  }

  interface SourceRead {
    items: { sortKey: string; item: Record<string, unknown> }[];
    /** The sort key up to which this source has been read; null once it is read to its end. */
    reached: string | null;
  }

  async function readSource(
    tenant: string,
    source: Source,
    expression: Expression,
    severity: string | undefined,
    after: string | undefined,
    want: number,
  ): Promise<SourceRead> {
    const sk = `${source.index}SK`;
    const pk = `${source.index}PK`;
    let startKey: Record<string, unknown> | undefined =
      after === undefined
        ? undefined
        : { PK: keys.tenant(tenant), SK: issueKeys.issue(after.split('#')[2]), [pk]: source.partition, [sk]: after };
    const items: SourceRead['items'] = [];
    const values = { ...expression.values, ':pk': source.partition, ...(severity === undefined ? {} : { ':sev': severity }) };
    for (let reads = 0; reads < READS_PER_SOURCE; reads += 1) {
      const output = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: source.index,
          KeyConditionExpression: `${pk} = :pk${severity === undefined ? '' : ` AND begins_with(${sk}, :sev)`}`,
          ...(source.conditions.length > 0 ? { FilterExpression: source.conditions.join(' AND ') } : {}),
          ...used(source, severity, expression.names, values),
          Limit: want + 1,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of output.Items ?? []) items.push({ sortKey: item[sk] as string, item });
      startKey = output.LastEvaluatedKey;
      if (startKey === undefined) return { items, reached: null };
      if (items.length > want) break;
    }
    return { items, reached: startKey![sk] as string };
  }

  /** DynamoDB refuses names and values an expression does not use: keep those of this source's conditions and key. */
  function used(source: Source, severity: string | undefined, names: Record<string, string>, values: Record<string, unknown>) {
    const text = `${source.conditions.join(' ')} :pk ${severity === undefined ? '' : ':sev'}`;
    const keep = <T>(entries: Record<string, T>) =>
      Object.fromEntries(Object.entries(entries).filter(([key]) => new RegExp(`${key}(?![A-Za-z0-9_])`).test(text)));
    const usedNames = keep(names);
    return {
      ...(Object.keys(usedNames).length > 0 ? { ExpressionAttributeNames: usedNames } : {}),
      ExpressionAttributeValues: keep(values),
    };
  }

  async function get(tenant: string, id: string): Promise<IssueRecord | null> {
    const output = await client.send(
      new GetCommand({ TableName: tableName, Key: { PK: keys.tenant(tenant), SK: issueKeys.issue(id) }, ConsistentRead: true }),
    );
    return output.Item ? fromItem(output.Item) : null;
  }

  return {
    async ofTarget(tenant, target) {
      const found: IssueRecord[] = [];
      for await (const item of queryAll(client, {
        TableName: tableName,
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :pk',
        ExpressionAttributeValues: { ':pk': issueKeys.byTarget(tenant, targetDigest(target)) },
      })) {
        // The partition holds the target in every spelling (and, rarely, a digest's other target).
        if (targetKey(item.target as string) === targetKey(target)) found.push(fromItem(item));
      }
      return found;
    },

    async save(tenant, issues) {
      await batchWrite(
        client,
        tableName,
        issues.map((issue) => ({ PutRequest: { Item: itemOf({ ...issue, tenant }) } })),
      );
    },

    get,

    async getMany(tenant, ids) {
      const unique = [...new Set(ids)];
      const items = await batchGet(
        client,
        tableName,
        unique.map((id) => ({ PK: keys.tenant(tenant), SK: issueKeys.issue(id) })),
      );
      return items.map(fromItem);
    },

    async triage(tenant, id, expectedVersion, triage) {
      try {
        const sets = ['updated_at = :now', 'version = version + :one'];
        const values: Record<string, unknown> = { ':now': triage.at, ':version': expectedVersion, ':one': 1 };
        const names: Record<string, string> = {};
        if (triage.status) {
          const change = triage.status;
          sets.push(
            '#status = :status',
            'GSI1PK = :gsi1pk',
            'status_reason = :reason',
            'status_until = :until',
            'status_changed_at = :at',
            'status_changed_by = :by',
            '#history = list_append(if_not_exists(#history, :empty), :entry)',
          );
          names['#status'] = 'status';
          names['#history'] = 'history';
          Object.assign(values, {
            ':status': change.status,
            ':gsi1pk': issueKeys.byStatus(tenant, change.status),
            ':reason': change.status_reason,
            ':until': change.status_until,
            ':at': change.status_changed_at,
            ':by': change.status_changed_by,
            ':entry': [change.entry],
            ':empty': [],
          });
        }
        if (triage.assignee !== undefined) {
          sets.push('assignee = :assignee');
          values[':assignee'] = triage.assignee;
        }
        if (triage.comment) {
          sets.push('#comments = list_append(if_not_exists(#comments, :empty), :comment)');
          names['#comments'] = 'comments';
          values[':comment'] = [triage.comment];
          values[':empty'] = [];
        }
        const output = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { PK: keys.tenant(tenant), SK: issueKeys.issue(id) },
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: 'attribute_exists(PK) AND version = :version',
            ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return fromItem(output.Attributes!);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        if ((await get(tenant, id)) === null) return null;
        throw new ConflictError('the issue changed while you were editing it; read it again');
      }
    },

    async list(tenant, filter, limit, cursor) {
      const after = cursor === undefined ? undefined : decodeIssueCursor(cursor, tenant);
      const expression = new Expression();
      const sources = sourcesFor(tenant, filter, expression);
      const severity = filter.severity === undefined ? undefined : `${severityRank(filter.severity)}#`;
      const reads = await Promise.all(sources.map((source) => readSource(tenant, source, expression, severity, after, limit)));
      // Only what every unfinished source has read past is known to be in order.
      const bounds = reads.map((read) => read.reached).filter((reached): reached is string => reached !== null);
      const bound = bounds.length === 0 ? null : bounds.reduce((low, reached) => (reached < low ? reached : low));
      const ordered = reads
        .flatMap((read) => read.items)
        .filter(({ sortKey }) => bound === null || sortKey <= bound)
        .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
      const page = ordered.slice(0, limit);
      let next: string | null = null;
      if (ordered.length > limit) next = page[page.length - 1].sortKey;
      else if (bound !== null) next = bound;
      return { items: page.map(({ item }) => fromItem(item)), nextCursor: next === null ? null : encodeIssueCursor(tenant, next) };
    },

    async rulesPresent(tenant, ruleIds) {
      // One key-only Query of Limit 1 per rule partition (GSI3), RULE_PROBES at a time: the cost is
      // the number of rules asked about, never the number of issues.
      const present = new Set<string>();
      const queue = [...new Set(ruleIds)];
      const probe = async () => {
        for (let ruleId = queue.shift(); ruleId !== undefined; ruleId = queue.shift()) {
          const output = await client.send(
            new QueryCommand({
              TableName: tableName,
              IndexName: 'GSI3',
              KeyConditionExpression: 'GSI3PK = :pk',
              ExpressionAttributeValues: { ':pk': issueKeys.byRule(tenant, ruleId) },
              ProjectionExpression: 'PK',
              Limit: 1,
            }),
          );
          if ((output.Items ?? []).length > 0) present.add(ruleId);
        }
      };
      await Promise.all(Array.from({ length: RULE_PROBES }, probe));
      return ruleIds.filter((ruleId) => present.has(ruleId));
    },
  };
}
