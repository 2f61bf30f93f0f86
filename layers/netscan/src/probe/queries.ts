/**
 * Recognisers for services that wait for the client (HTTP and the HTTP APIs of Elasticsearch and
 * Docker, Redis, memcached, MongoDB, PostgreSQL, RDP): the request each probe sends and a parser
 * of the answer. Every request is read-only and carries no credentials.
 */
import { parseHttpResponse, jsonBody, type HttpResponse } from './http-response.ts';
import { opMsg, parseOpMsgReply } from './mongodb-wire.ts';
import type { BsonDocument } from './bson.ts';
import type { Parse } from './conversation.ts';
import { firstLine, printable, type ServiceIdentity } from './service.ts';

/** `GET <path>` over HTTP/1.0 with Connection: close, so the body ends at the close. */
export function httpGet(host: string, path: string): string {
  return `GET ${path} HTTP/1.0\r\nHost: ${host}\r\nUser-Agent: netscan\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
}

export const parseHttp: Parse<HttpResponse> = parseHttpResponse;

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const SERVER_PRODUCTS: [RegExp, string][] = [
  [/^Apache\/(\d[\w.]*)/, 'Apache httpd'],
  [/^nginx\/(\d[\w.]*)/, 'nginx'],
  [/^Microsoft-IIS\/(\d[\w.]*)/, 'Microsoft IIS'],
  [/^lighttpd\/(\d[\w.]*)/, 'lighttpd'],
  [/^Caddy/, 'Caddy'],
  [/^openresty\/(\d[\w.]*)/, 'OpenResty'],
];

/** What an HTTP answer to `GET /` says the service is: Docker's API, Elasticsearch, or a web server. */
export function identifyHttp(response: HttpResponse, tls: boolean): ServiceIdentity {
  const server = response.headers.get('server') ?? '';
  const banner = `HTTP ${response.status}${server ? ` Server: ${server}` : ''}`.slice(0, 200);
  const docker = /^Docker\/(\d[\w.+-]*)/.exec(server);
  if (docker || response.headers.has('api-version') || response.headers.has('docker-experimental')) {
    return { service: 'docker', tls, product: 'Docker Engine', ...(docker ? { version: docker[1] } : {}), banner };
  }
  const body = record(jsonBody(response));
  const version = record(body?.version);
  const elasticHeader = /elasticsearch/i.test(response.headers.get('x-elastic-product') ?? '');
  const elasticBody = body !== undefined && (body.tagline === 'You Know, for Search' || ('cluster_name' in body && version !== undefined));
  const elasticAuth =
    response.status === 401 &&
    /security_exception/.test(response.body.toString('utf8', 0, 2048)) &&
    /realm="security"/i.test(response.headers.get('www-authenticate') ?? '');
  if (elasticHeader || elasticBody || elasticAuth) {
    const number = typeof version?.number === 'string' ? version.number : undefined;
    const distribution = typeof version?.distribution === 'string' ? version.distribution : undefined;
    return {
      service: 'elasticsearch',
      tls,
      product: distribution === 'opensearch' ? 'OpenSearch' : 'Elasticsearch',
      ...(number ? { version: number } : {}),
      banner,
      details: { status: response.status, ...(typeof body?.cluster_name === 'string' ? { cluster_name: body.cluster_name } : {}) },
    };
  }
  const identity: ServiceIdentity = { service: 'http', tls, banner, details: { status: response.status } };
  for (const [pattern, product] of SERVER_PRODUCTS) {
    const match = pattern.exec(server);
    if (match) {
      identity.product = product;
      if (match[1]) identity.version = match[1];
      break;
    }
  }
  if (!identity.product && server) identity.product = server.slice(0, 100);
  return identity;
}

/** RESP (Redis serialization protocol): one reply, a bulk string or a status/error line. */
export const parseRespReply: Parse<{ kind: 'bulk' | 'error' | 'status'; text: string }> = (bytes) => {
  if (bytes.length === 0) return 'more';
  const kind = bytes[0];
  if (kind !== 0x24 && kind !== 0x2d && kind !== 0x2b) return null;
  const lineEnd = bytes.indexOf('\r\n');
  if (lineEnd === -1) return bytes.length > 1024 ? null : 'more';
  const line = bytes.toString('latin1', 1, lineEnd);
  if (kind === 0x2d) return { kind: 'error', text: line };
  if (kind === 0x2b) return { kind: 'status', text: line };
  if (!/^\d{1,7}$/.test(line)) return null;
  const length = Number(line);
  if (bytes.length < lineEnd + 2 + length + 2) return 'more';
  return { kind: 'bulk', text: bytes.toString('utf8', lineEnd + 2, lineEnd + 2 + length) };
};

/** `INFO server` as a RESP array: read-only, answers without AUTH only where auth is off. */
export const REDIS_INFO = '*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n';

/** A Redis reply to INFO: the version when it answered, the refusal otherwise (NOAUTH, protected mode). */
export function identifyRedis(reply: { kind: 'bulk' | 'error' | 'status'; text: string }): ServiceIdentity | null {
  if (reply.kind === 'bulk') {
    const version = /^redis_version:([\w.]+)\r?$/m.exec(reply.text);
    if (!version) return null;
    return {
      service: 'redis',
      tls: false,
      product: 'Redis',
      version: version[1],
      banner: `redis_version:${version[1]}`,
      details: { info_answered: true },
    };
  }
  if (reply.kind === 'error' && /^(NOAUTH|DENIED|WRONGPASS|NOPERM)\b|Authentication required|protected mode/i.test(reply.text)) {
    return {
      service: 'redis',
      tls: false,
      product: 'Redis',
      banner: printable(Buffer.from(`-${reply.text}`)),
      details: { info_answered: false },
    };
  }
  return null;
}

/** memcached's text protocol: `version` → `VERSION 1.6.21`. */
export const MEMCACHED_VERSION = 'version\r\n';
export const parseMemcachedVersion: Parse<ServiceIdentity> = (bytes) => {
  const text = bytes.toString('latin1');
  if (!text.includes('\r\n')) return text.length > 256 || !'VERSION '.startsWith(text.slice(0, 8)) ? null : 'more';
  const match = /^VERSION (\S+)\r\n/.exec(text);
  return match ? { service: 'memcached', tls: false, product: 'memcached', version: match[1], banner: firstLine(bytes) } : null;
};

/** memcached `stats`: `STAT name value` lines up to `END`. */
export const MEMCACHED_STATS = 'stats\r\n';
export const parseMemcachedStats: Parse<Map<string, string>> = (bytes) => {
  const text = bytes.toString('latin1');
  if (!text.endsWith('END\r\n')) return /^(S|ST|STA|STAT |STAT\s)/.test(text) || text.length === 0 ? 'more' : null;
  const stats = new Map<string, string>();
  for (const match of text.matchAll(/^STAT (\S+) ([^\r\n]*)\r$/gm)) stats.set(match[1], match[2]);
  return stats.size > 0 ? stats : null;
};

/** An OP_MSG command and the parser of its reply. */
export function mongoCommand(requestId: number, command: BsonDocument): { request: Buffer; parse: Parse<BsonDocument> } {
  return {
    request: opMsg(requestId, command),
    parse: (bytes) => {
      if (bytes.length < 4) return 'more';
      const length = bytes.readInt32LE(0);
      if (length < 21 || length > 16 * 1024 * 1024) return null;
      if (bytes.length < length) return 'more';
      return parseOpMsgReply(bytes.subarray(0, length), requestId);
    },
  };
}

/** A `hello` reply: what only a MongoDB server sends. */
export function isMongoHello(reply: BsonDocument): boolean {
  return reply.ok === 1 && (typeof reply.maxWireVersion === 'number' || 'isWritablePrimary' in reply || 'ismaster' in reply);
}

/** PostgreSQL SSLRequest (protocol code 80877103): the server answers one byte, S or N. */
export const PG_SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
export const parsePgSslAnswer: Parse<'S' | 'N'> = (bytes) => {
  if (bytes.length === 0) return 'more';
  if (bytes.length > 1) return null;
  return bytes[0] === 0x53 ? 'S' : bytes[0] === 0x4e ? 'N' : null;
};

/**
 * A startup packet asking for protocol 0.0, which no server supports: PostgreSQL answers an
 * ErrorResponse ("unsupported frontend protocol") before any authentication, so no user name
 * or login is ever sent.
 */
export const PG_BAD_STARTUP = Buffer.from([0, 0, 0, 8, 0, 0, 0, 0]);
export const parsePgError: Parse<Map<string, string>> = (bytes) => {
  if (bytes.length === 0) return 'more';
  if (bytes[0] !== 0x45) return null;
  if (bytes.length < 5) return 'more';
  const length = bytes.readInt32BE(1);
  if (length < 4 || length > 8192) return null;
  if (bytes.length < 1 + length) return 'more';
  const fields = new Map<string, string>();
  let at = 5;
  while (at < 1 + length && bytes[at] !== 0) {
    const end = bytes.indexOf(0, at + 1);
    if (end === -1) return null;
    fields.set(String.fromCharCode(bytes[at]), bytes.toString('utf8', at + 1, end));
    at = end + 1;
  }
  return fields.has('S') && fields.has('M') ? fields : null;
};

/** X.224 Connection Request carrying an RDP Negotiation Request for TLS and CredSSP ([MS-RDPBCGR] 2.2.1.1). */
export const RDP_CONNECTION_REQUEST = Buffer.from([
  0x03, 0x00, 0x00, 0x13, 0x0e, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x03, 0x00, 0x00, 0x00,
]);
const RDP_PROTOCOLS: Record<number, string> = {
  0: 'standard RDP security',
  1: 'TLS',
  2: 'CredSSP (NLA)',
  8: 'RDSTLS',
  4: 'CredSSP with early user auth',
};
export const parseRdpConfirm: Parse<ServiceIdentity> = (bytes) => {
  if (bytes.length < 4) return bytes.length === 0 || bytes[0] === 0x03 ? 'more' : null;
  if (bytes[0] !== 0x03 || bytes[1] !== 0x00) return null;
  const length = bytes.readUInt16BE(2);
  if (length < 11 || length > 512) return null;
  if (bytes.length < length) return 'more';
  if ((bytes[5] & 0xf0) !== 0xd0) return null;
  const identity: ServiceIdentity = { service: 'rdp', tls: false, banner: printable(bytes.subarray(0, length)) };
  if (length >= 19 && bytes[11] === 0x02)
    identity.details = { security: RDP_PROTOCOLS[bytes.readUInt32LE(15)] ?? `protocol ${bytes.readUInt32LE(15)}` };
  if (length >= 19 && bytes[11] === 0x03) identity.details = { negotiation_failure: bytes.readUInt32LE(15) };
  return identity;
};
