/**
 * vapt's unauthenticated-access probes (DESIGN §14): one read-only request per service, without
 * credentials, that answers only when the service lets anyone in. Nothing is written, no login is
 * attempted, no password guessed. Redis needs no extra request: identification already sent INFO.
 */
import type { Conversation, Dialer } from '../probe/conversation.ts';
import { jsonBody } from '../probe/http-response.ts';
import { httpGet, MEMCACHED_STATS, mongoCommand, parseHttp, parseMemcachedStats } from '../probe/queries.ts';
import type { ServiceIdentity } from '../probe/service.ts';

export type AccessOutcome =
  | { open: true; request: string; detail: string; evidence: Record<string, unknown> }
  | { open: false; request: string; detail: string }
  /** The probe got no answer it could read: an error, never "closed". */
  | { error: string; request: string };

export const UNAUTHENTICATED_SERVICES = ['redis', 'mongodb', 'elasticsearch', 'memcached', 'docker'] as const;

async function open(dialer: Dialer, tls: boolean): Promise<Conversation> {
  if (!tls) return dialer.plain();
  const conversation = await dialer.tls();
  if (conversation === null || 'alert' in conversation) throw new Error('the TLS handshake did not complete this time');
  return conversation;
}

async function converse<T>(dialer: Dialer, tls: boolean, use: (c: Conversation) => Promise<T>): Promise<T> {
  const conversation = await open(dialer, tls);
  try {
    return await use(conversation);
  } finally {
    conversation.close();
  }
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The probe for `identity`'s service, or null when the service has none. */
export async function probeUnauthenticatedAccess(identity: ServiceIdentity, dialer: Dialer, host: string): Promise<AccessOutcome | null> {
  switch (identity.service) {
    case 'redis': {
      const request = 'INFO server';
      if (identity.details?.info_answered === true)
        return { open: true, request, detail: 'Redis answered INFO without AUTH', evidence: { redis_version: identity.version } };
      return { open: false, request, detail: `Redis refused INFO: ${identity.banner ?? 'authentication required'}` };
    }
    case 'mongodb': {
      const request = 'listDatabases (nameOnly) on admin';
      const command = mongoCommand(3, { listDatabases: 1, nameOnly: true, $db: 'admin' });
      const reply = await converse(dialer, identity.tls, (c) => c.ask(command.request, command.parse));
      if (reply === null) return { error: 'MongoDB gave no readable answer to listDatabases', request };
      if (reply.ok === 1 && Array.isArray(reply.databases)) {
        const names = reply.databases.map((db) => {
          const name = record(db)?.name;
          return typeof name === 'string' ? name : '?';
        });
        return {
          open: true,
          request,
          detail: `MongoDB listed ${names.length} databases without credentials`,
          evidence: { databases: names.slice(0, 20), database_count: names.length },
        };
      }
      return { open: false, request, detail: `MongoDB refused: ${typeof reply.errmsg === 'string' ? reply.errmsg : 'not authorized'}` };
    }
    case 'elasticsearch': {
      const request = 'GET /_cluster/health';
      const response = await converse(dialer, identity.tls, (c) => c.ask(httpGet(host, '/_cluster/health'), parseHttp));
      if (response === null) return { error: 'Elasticsearch gave no readable answer to GET /_cluster/health', request };
      const health = record(jsonBody(response));
      if (response.status === 200 && typeof health?.cluster_name === 'string') {
        return {
          open: true,
          request,
          detail: `Elasticsearch returned the health of cluster ${health.cluster_name} without credentials`,
          evidence: { cluster_name: health.cluster_name, status: health.status, number_of_nodes: health.number_of_nodes },
        };
      }
      return { open: false, request, detail: `Elasticsearch answered HTTP ${response.status}` };
    }
    case 'memcached': {
      const request = 'stats';
      const { stats, said } = await converse(dialer, identity.tls, async (c) => ({
        stats: await c.ask(MEMCACHED_STATS, parseMemcachedStats),
        said: c.received.toString('latin1', 0, 200),
      }));
      if (stats === null) {
        const refusal = /^(CLIENT_ERROR|SERVER_ERROR|ERROR)[^\r\n]*/.exec(said);
        return refusal
          ? { open: false, request, detail: `memcached refused stats: ${refusal[0]}` }
          : { error: 'memcached gave no readable answer to stats', request };
      }
      return {
        open: true,
        request,
        detail: `memcached returned ${stats.size} statistics without credentials`,
        evidence: { version: stats.get('version'), curr_items: stats.get('curr_items'), curr_connections: stats.get('curr_connections') },
      };
    }
    case 'docker': {
      const request = 'GET /version';
      const response = await converse(dialer, identity.tls, (c) => c.ask(httpGet(host, '/version'), parseHttp));
      if (response === null) return { error: 'the Docker API gave no readable answer to GET /version', request };
      const version = record(jsonBody(response));
      if (response.status === 200 && typeof version?.ApiVersion === 'string') {
        return {
          open: true,
          request,
          detail: `the Docker Engine API returned /version without credentials: anyone who reaches it controls the host`,
          evidence: { version: version.Version, api_version: version.ApiVersion, os: version.Os },
        };
      }
      return { open: false, request, detail: `the Docker API answered HTTP ${response.status}` };
    }
    default:
      return null;
  }
}
