import pg from 'pg';
import type { LegacySchedule, LegacyPeriodicTask } from '../../domain/legacy/legacy-schedule.ts';
import type { LegacyScheduleSource, LegacyTenant } from '../../ports/legacy-schedule-source.ts';

export interface PostgresLegacySourceOptions {
  connectionString: string;
  /** Server-side limit on every statement (PostgreSQL `statement_timeout`). */
  statementTimeoutMs?: number;
  /** Connections at most: one per row being disabled at once, plus the reads. */
  maxConnections?: number;
}

/** A legacy schema name that public.tenants_tenant does not list: refused before any SQL names it. */
export class UnknownLegacySchemaError extends Error {}

interface TaskColumns {
  task_id: number | null;
  task_name: string | null;
  task: string | null;
  enabled: boolean | null;
  one_off: boolean | null;
  minute: string | null;
  hour: string | null;
  day_of_week: string | null;
  day_of_month: string | null;
  month_of_year: string | null;
  timezone: string | null;
  every: number | null;
  period: string | null;
}

const TASK_SELECT = `
  t.id AS task_id, t.name AS task_name, t.task, t.enabled, t.one_off,
  c.minute, c.hour, c.day_of_week, c.day_of_month, c.month_of_year, c.timezone::text AS timezone,
  i.every, i.period`;

function taskJoins(schema: string, alias: string): string {
  return `
  LEFT JOIN ${schema}.django_celery_beat_periodictask t ON t.id = ${alias}.periodic_task_id
  LEFT JOIN ${schema}.django_celery_beat_crontabschedule c ON c.id = t.crontab_id
  LEFT JOIN ${schema}.django_celery_beat_intervalschedule i ON i.id = t.interval_id`;
}

function taskOf(row: TaskColumns): LegacyPeriodicTask | null {
  if (row.task_id === null) return null;
  return {
    id: row.task_id,
    name: row.task_name ?? '',
    task: row.task ?? '',
    enabled: row.enabled === true,
    one_off: row.one_off === true,
    crontab:
      row.minute === null
        ? null
        : {
            minute: row.minute,
            hour: row.hour ?? '',
            day_of_week: row.day_of_week ?? '',
            day_of_month: row.day_of_month ?? '',
            month_of_year: row.month_of_year ?? '',
            timezone: row.timezone ?? 'UTC',
          },
    interval: row.every === null ? null : { every: row.every, period: row.period ?? '' },
  };
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/**
 * The legacy Django database through `pg`. Every value travels as a query parameter; the one thing
 * that cannot (a schema name) is first checked against public.tenants_tenant and then quoted as an
 * identifier. Each statement runs under `statement_timeout`. Enabling or disabling a task is one
 * transaction with the `last_update` bump that makes a running celery beat reload.
 */
export function makePostgresLegacySource(
  options: PostgresLegacySourceOptions,
): LegacyScheduleSource & { close(): Promise<void>; statementTimeout(): Promise<string> } {
  const statementTimeoutMs = Math.trunc(options.statementTimeoutMs ?? 30_000);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 5,
    connectionTimeoutMillis: 10_000,
    application_name: 'scan-service-backfill',
  });
  const prepared = new WeakSet<pg.PoolClient>();

  /** A pooled connection with `statement_timeout` set: a SET rather than the startup parameter, which poolers such as PgBouncer refuse. */
  async function connect(): Promise<pg.PoolClient> {
    const client = await pool.connect();
    if (!prepared.has(client)) {
      try {
        await client.query(`SET statement_timeout = ${statementTimeoutMs}`);
      } catch (error) {
        client.release(true);
        throw error;
      }
      prepared.add(client);
    }
    return client;
  }

  async function query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    const client = await connect();
    try {
      return await client.query<R>(text, values);
    } finally {
      client.release();
    }
  }

  let known: Set<string> | null = null;

  async function listTenants(): Promise<LegacyTenant[]> {
    const { rows } = await query<{ schema_name: string; name: string }>(
      "SELECT schema_name, name FROM public.tenants_tenant WHERE schema_name <> 'public' ORDER BY schema_name",
    );
    known = new Set(rows.map((row) => row.schema_name));
    return rows.map((row) => ({ schema: row.schema_name, name: row.name }));
  }

  /** The quoted schema, once it is known to be a tenant's. */
  async function schemaOf(tenant: string): Promise<string> {
    if (known === null || !known.has(tenant)) await listTenants();
    if (!known!.has(tenant)) throw new UnknownLegacySchemaError(`${JSON.stringify(tenant)} is not a schema_name in public.tenants_tenant`);
    return pg.escapeIdentifier(tenant);
  }

  return {
    listTenants,

    async listSchedules(tenant) {
      const schema = await schemaOf(tenant);
      const secret = await query<
        TaskColumns & { id: string; name: string; repository_url: string; scan_options: unknown; created_at: Date | null }
      >(
        `SELECT s.id::text AS id, s.name, s.repository_url, s.scan_options, s.created_at, ${TASK_SELECT}
         FROM ${schema}.secretscan_schedule s ${taskJoins(schema, 's')}
         ORDER BY s.id`,
      );
      const network = await query<
        TaskColumns & { id: string; name: string; target: string; ports: string | null; created_at: Date | null }
      >(
        `SELECT n.id::text AS id, n.name, n.target, n.ports, n.created_at, ${TASK_SELECT}
         FROM ${schema}.network_continuousschedule n ${taskJoins(schema, 'n')}
         ORDER BY n.id`,
      );
      const schedules: LegacySchedule[] = [
        ...secret.rows.map((row): LegacySchedule => ({
          model: 'secretscan.schedule',
          id: row.id,
          name: row.name ?? '',
          repository_url: row.repository_url ?? '',
          scan_options: row.scan_options,
          created_at: iso(row.created_at),
          task: taskOf(row),
        })),
        ...network.rows.map((row): LegacySchedule => ({
          model: 'network.continuousschedule',
          id: row.id,
          name: row.name ?? '',
          target: row.target ?? '',
          ports: row.ports,
          created_at: iso(row.created_at),
          task: taskOf(row),
        })),
      ];
      return schedules;
    },

    async countCloudMonitoringSchedules(tenant) {
      const schema = await schemaOf(tenant);
      const { rows } = await query<{ count: number }>(`SELECT count(*)::int AS count FROM ${schema}.cloud_monitoringschedule`);
      return rows[0].count;
    },

    async setTaskEnabled(tenant, taskId, enabled) {
      const schema = await schemaOf(tenant);
      const client = await connect();
      try {
        await client.query('BEGIN');
        const changed = await client.query(
          `UPDATE ${schema}.django_celery_beat_periodictask SET enabled = $1 WHERE id = $2 AND enabled <> $1`,
          [enabled, taskId],
        );
        if ((changed.rowCount ?? 0) > 0) {
          // django-celery-beat's PeriodicTasks.changed(): update_or_create(ident=1, last_update=now()).
          const bumped = await client.query(`UPDATE ${schema}.django_celery_beat_periodictasks SET last_update = now() WHERE ident = 1`);
          if ((bumped.rowCount ?? 0) === 0)
            await client.query(`INSERT INTO ${schema}.django_celery_beat_periodictasks (ident, last_update) VALUES (1, now())`);
        }
        await client.query('COMMIT');
        return (changed.rowCount ?? 0) > 0;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },

    /** The `statement_timeout` a connection of this source runs with (operators' pre-checks, tests). */
    async statementTimeout() {
      const { rows } = await query<{ statement_timeout: string }>('SHOW statement_timeout');
      return rows[0].statement_timeout;
    },

    close: () => pool.end(),
  };
}
