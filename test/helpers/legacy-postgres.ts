import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { repositoryRoot } from '../../infra/paths.ts';

const FIXTURES = join(repositoryRoot, 'test/fixtures/legacy');
export const LEGACY_TENANTS = ['acme', 'globex', 'initech'] as const;

/** Every legacy table of a tenant schema, in the order the checksums list them. */
export const LEGACY_TABLES = [
  'django_celery_beat_crontabschedule',
  'django_celery_beat_intervalschedule',
  'django_celery_beat_periodictask',
  'django_celery_beat_periodictasks',
  'secretscan_schedule',
  'network_continuousschedule',
  'cloud_monitoringschedule',
] as const;

export interface LegacyPostgres {
  /** postgres:// URL of the wire-protocol server on a loopback port. */
  url: string;
  db: PGlite;
  /** Drops the tenant schemas and tenants_tenant and loads the fixture again. */
  reset(): Promise<void>;
  /** Row count and md5 of every row (as text, sorted) per table; `except` leaves columns out. */
  checksums(except?: Partial<Record<(typeof LEGACY_TABLES)[number], string[]>>): Promise<Record<string, { rows: number; md5: string }>>;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** The tenant schema DDL with `:schema` replaced. */
export async function tenantSchemaSql(schema: string): Promise<string> {
  return (await readFile(join(FIXTURES, 'schema.sql'), 'utf8')).replaceAll(':schema', schema);
}

/**
 * PGlite (PostgreSQL in WebAssembly) served over the PostgreSQL wire protocol on a loopback port,
 * so the backfill's `pg` adapter talks to it exactly as to a PostgreSQL server. Loaded with
 * test/fixtures/legacy: public.tenants_tenant and three tenant schemas of legacy rows.
 */
export async function startLegacyPostgres(options: { load?: (db: PGlite) => Promise<void> } = {}): Promise<LegacyPostgres> {
  const db = await PGlite.create();
  const load =
    options.load ??
    (async (target: PGlite) => {
      await target.exec(await readFile(join(FIXTURES, 'public.sql'), 'utf8'));
      for (const tenant of LEGACY_TENANTS) await target.exec(await tenantSchemaSql(tenant));
      await target.exec(await readFile(join(FIXTURES, 'tenants.sql'), 'utf8'));
    });
  await load(db);
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 16 });
  await server.start();
  const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;

  async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await db.query<T>(sql, params)).rows;
  }

  return {
    url,
    db,
    query,
    async reset() {
      const schemas = await query<{ schema_name: string }>(
        "SELECT schema_name FROM public.tenants_tenant WHERE schema_name <> 'public'",
      ).catch(() => []);
      for (const { schema_name } of schemas) await db.exec(`DROP SCHEMA IF EXISTS "${schema_name}" CASCADE`);
      await db.exec('DROP TABLE IF EXISTS public.tenants_tenant');
      await load(db);
    },
    async checksums(except = {}) {
      const out: Record<string, { rows: number; md5: string }> = {};
      const tenants = await query<{ schema_name: string }>(
        "SELECT schema_name FROM public.tenants_tenant WHERE schema_name <> 'public' ORDER BY schema_name",
      );
      const tables = [
        ['public', 'tenants_tenant'],
        ...tenants.flatMap(({ schema_name }) => LEGACY_TABLES.map((table) => [schema_name, table])),
      ];
      for (const [schema, table] of tables) {
        const dropped = (except[table as (typeof LEGACY_TABLES)[number]] ?? []).map((column) => ` - '${column}'`).join('');
        const [row] = await query<{ rows: number; md5: string }>(
          `SELECT count(*)::int AS rows, md5(coalesce(string_agg(r, '|' ORDER BY r), '')) AS md5
           FROM (SELECT (to_jsonb(t)${dropped})::text AS r FROM "${schema}"."${table}" t) s`,
        );
        out[`${schema}.${table}`] = row;
      }
      return out;
    },
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
