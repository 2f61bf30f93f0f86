/**
 * Names the service on an open port, as nmap's version detection does in spirit: wait for a
 * greeting; recognise the protocols that speak first; otherwise try the client-first probes one
 * connection each (TLS first, then HTTP, Redis, memcached, MongoDB, PostgreSQL, RDP), the
 * port's usual service moved to the front. Every probe is read-only and sends no credentials.
 */
import type { Conversation, Dialer, Parse } from './conversation.ts';
import { productFromGreeting, recogniseMysql, recogniseSsh, recogniseTelnet, recogniseTextGreeting, recogniseVnc } from './greetings.ts';
import {
  httpGet,
  identifyHttp,
  identifyRedis,
  isMongoHello,
  MEMCACHED_VERSION,
  mongoCommand,
  parseHttp,
  parseMemcachedVersion,
  parsePgError,
  parsePgSslAnswer,
  parseRdpConfirm,
  parseRespReply,
  PG_BAD_STARTUP,
  PG_SSL_REQUEST,
  RDP_CONNECTION_REQUEST,
  REDIS_INFO,
} from './queries.ts';
import { printable, type ServiceIdentity } from './service.ts';

export interface IdentifyOptions {
  /** The Host header and TLS server name: the target's hostname, else the address. */
  host: string;
  port: number;
  /** How long to wait for a service that speaks first. */
  greetingMs: number;
}

type Greeting =
  | { kind: 'identity'; identity: ServiceIdentity }
  | { kind: 'text'; text: string; protocol: 'ftp' | 'smtp' | 'ambiguous' | 'pop3' | 'imap' };

/** Any of the speak-first recognisers: the first to decide wins; `'more'` while any may still match. */
function parseGreeting(bytes: Buffer): Greeting | null | 'more' {
  let undecided = false;
  for (const recognise of [recogniseSsh, recogniseTelnet, recogniseVnc, recogniseMysql]) {
    const result = recognise(bytes);
    if (result === 'more') undecided = true;
    else if (result !== null) return { kind: 'identity', identity: result };
  }
  const text = recogniseTextGreeting(bytes);
  if (text === 'more') return 'more';
  if (text !== null) return { kind: 'text', text: text.text, protocol: text.kind };
  return undecided ? 'more' : null;
}

/** Lines of a complete FTP/SMTP reply (ends with `ddd ` on its last line). */
function replyLines(bytes: Buffer): string[] | null | 'more' {
  const text = bytes.toString('latin1');
  if (!/\r?\n$/.test(text)) return text.length > 16_384 ? null : 'more';
  const lines = text.split(/\r?\n/).filter((line) => line !== '');
  const last = lines.at(-1) ?? '';
  if (/^\d{3} /.test(last) || /^\d{3}$/.test(last)) return lines;
  if (/^\d{3}-/.test(last)) return 'more';
  return null;
}

/** POP3 CAPA / IMAP CAPABILITY answers. */
function untilLine(pattern: RegExp): Parse<string> {
  return (bytes) => {
    const text = bytes.toString('latin1');
    if (pattern.test(text)) return text;
    return text.length > 16_384 ? null : 'more';
  };
}

/** Completes a text greeting: EHLO tells SMTP from FTP and lists STARTTLS; FEAT lists AUTH TLS; CAPA/CAPABILITY list STLS/STARTTLS. */
async function followText(
  conversation: Conversation,
  greeting: Extract<Greeting, { kind: 'text' }>,
  tls: boolean,
): Promise<ServiceIdentity> {
  return unlessCutShort(conversation, await followTextUnchecked(conversation, greeting, tls));
}

/**
 * An identity learnt over a conversation whose last answer (EHLO, FEAT, CAPA) was cut short: what
 * it would have said (STARTTLS offered or not) is unknown, so it says nothing and is unfinished.
 */
function unlessCutShort(conversation: Conversation, identity: ServiceIdentity): ServiceIdentity {
  if (!conversation.cutShort) return identity;
  const { offersTls: _unknown, ...rest } = identity;
  return { ...rest, unfinished: `the ${identity.service.toUpperCase()} service's answer to a capability query did not finish` };
}

async function followTextUnchecked(
  conversation: Conversation,
  greeting: Extract<Greeting, { kind: 'text' }>,
  tls: boolean,
): Promise<ServiceIdentity> {
  const banner = printable(Buffer.from(greeting.text.split(/\r?\n/)[0] ?? '', 'latin1'));
  const product = productFromGreeting(greeting.text);
  if (greeting.protocol === 'pop3') {
    const capa = await conversation.ask('CAPA\r\n', untilLine(/(^|\n)(\.\r?\n|-ERR[^\n]*\n)/));
    return { service: 'pop3', tls, banner, ...product, ...(tls ? {} : { offersTls: capa !== null && /^STLS\b/m.test(capa) }) };
  }
  if (greeting.protocol === 'imap') {
    const capa = /\bSTARTTLS\b/i.test(greeting.text)
      ? greeting.text
      : await conversation.ask('a1 CAPABILITY\r\n', untilLine(/(^|\n)a1 (OK|NO|BAD)[^\n]*\n/));
    return { service: 'imap', tls, banner, ...product, ...(tls ? {} : { offersTls: capa !== null && /\bSTARTTLS\b/i.test(capa) }) };
  }
  let protocol = greeting.protocol;
  let ehlo: string[] | null = null;
  if (protocol !== 'ftp') {
    ehlo = await conversation.ask('EHLO netscan.invalid\r\n', replyLines);
    if (ehlo !== null && /^250[ -]/.test(ehlo[0])) protocol = 'smtp';
    else if (protocol === 'ambiguous') protocol = 'ftp';
  }
  if (protocol === 'smtp') {
    return {
      service: 'smtp',
      tls,
      banner,
      ...product,
      ...(tls ? {} : { offersTls: ehlo !== null && ehlo.some((line) => /^250[ -]STARTTLS\b/i.test(line)) }),
    };
  }
  const feat = await conversation.ask('FEAT\r\n', replyLines);
  return {
    service: 'ftp',
    tls,
    banner,
    ...product,
    ...(tls ? {} : { offersTls: feat !== null && feat.some((line) => /^\s*AUTH\b.*\bTLS\b/i.test(line)) }),
  };
}

async function withConversation<T>(
  open: () => Promise<Conversation | null>,
  use: (c: Conversation) => Promise<T | null>,
): Promise<T | null> {
  const conversation = await open();
  if (conversation === null) return null;
  try {
    return await use(conversation);
  } finally {
    conversation.close();
  }
}

type ClientFirstProbe = (dialer: Dialer, options: IdentifyOptions) => Promise<ServiceIdentity | null>;

/** mongod answers HTTP on its driver port with a notice; the wire protocol then says the rest. */
const MONGOD_HTTP_NOTICE = /trying to access MongoDB (over HTTP )?on the native driver port/;

const probeHttp: ClientFirstProbe = async (dialer, options) => {
  const response = await withConversation(
    () => dialer.plain(),
    (c) => c.ask(httpGet(options.host, '/'), parseHttp),
  );
  if (response === null) return null;
  if (MONGOD_HTTP_NOTICE.test(response.body.toString('latin1', 0, 512))) {
    return (
      (await probeMongo(dialer, options)) ?? {
        service: 'mongodb',
        tls: false,
        product: 'MongoDB',
        banner: 'HTTP notice of the driver port',
      }
    );
  }
  return identifyHttp(response, false);
};

const probeRedis: ClientFirstProbe = (dialer) =>
  withConversation(
    () => dialer.plain(),
    async (c) => {
      const reply = await c.ask(REDIS_INFO, parseRespReply);
      return reply ? identifyRedis(reply) : null;
    },
  );

const probeMemcached: ClientFirstProbe = (dialer) =>
  withConversation(
    () => dialer.plain(),
    (c) => c.ask(MEMCACHED_VERSION, parseMemcachedVersion),
  );

const probeMongo: ClientFirstProbe = (dialer) =>
  withConversation(
    () => dialer.plain(),
    async (c) => {
      const hello = mongoCommand(1, { hello: 1, $db: 'admin' });
      const reply = await c.ask(hello.request, hello.parse);
      if (reply === null || !isMongoHello(reply)) return null;
      const buildInfo = mongoCommand(2, { buildInfo: 1, $db: 'admin' });
      const info = await c.ask(buildInfo.request, buildInfo.parse);
      const version = typeof info?.version === 'string' ? info.version : undefined;
      return {
        service: 'mongodb',
        tls: false,
        product: 'MongoDB',
        ...(version ? { version } : {}),
        banner: typeof reply.maxWireVersion === 'number' ? `maxWireVersion ${reply.maxWireVersion}` : 'hello answered',
      };
    },
  );

const probePostgres: ClientFirstProbe = async (dialer) => {
  const ssl = await withConversation(
    () => dialer.plain(),
    async (c) => {
      const answer = await c.ask(PG_SSL_REQUEST, parsePgSslAnswer);
      if (answer !== 'N') return answer === null ? null : { answer, error: null };
      return { answer, error: await c.ask(PG_BAD_STARTUP, parsePgError) };
    },
  );
  if (ssl === null) return null;
  const error =
    ssl.error ??
    (await withConversation(
      () => dialer.plain(),
      (c) => c.ask(PG_BAD_STARTUP, parsePgError),
    ));
  if (error === null || !/frontend protocol|startup packet/i.test(error.get('M') ?? '')) return null;
  return {
    service: 'postgresql',
    tls: false,
    product: 'PostgreSQL',
    offersTls: ssl.answer === 'S',
    banner: printable(Buffer.from(error.get('M') ?? '')),
  };
};

const probeRdp: ClientFirstProbe = (dialer) =>
  withConversation(
    () => dialer.plain(),
    (c) => c.ask(RDP_CONNECTION_REQUEST, parseRdpConfirm),
  );

/**
 * Inside TLS: a greeting (smtps, imaps, pop3s, ftps), else HTTP on a second connection, else plain
 * `tls`. The first connection is closed before the second opens: some servers (openssl s_server)
 * serve one connection at a time.
 */
const probeTls: ClientFirstProbe = async (dialer, options) => {
  const first = await dialer.tls();
  if (first === null) return null;
  if ('alert' in first) return { service: 'tls', tls: true, details: { handshake: `ended with ${first.alert}` } };
  const spoke = await withConversation(
    async () => first,
    async (c): Promise<ServiceIdentity | { silent: true }> => {
      const greeting = await c.ask(null, parseGreeting, options.greetingMs);
      if (greeting?.kind === 'identity') return { ...greeting.identity, tls: true };
      if (greeting?.kind === 'text') return followText(c, greeting, true);
      if (c.received.length > 0) return { service: 'tls', tls: true, banner: printable(c.received) };
      return { silent: true };
    },
  );
  if (spoke !== null && !('silent' in spoke)) return spoke;
  const web = await withConversation(
    async () => {
      const inner = await dialer.tls();
      return inner === null || 'alert' in inner ? null : inner;
    },
    async (inner) => {
      const response = await inner.ask(httpGet(options.host, '/'), parseHttp);
      return response ? identifyHttp(response, true) : null;
    },
  );
  return web ?? { service: 'tls', tls: true };
};

const CLIENT_FIRST: Record<string, ClientFirstProbe> = {
  tls: probeTls,
  http: probeHttp,
  redis: probeRedis,
  memcached: probeMemcached,
  mongodb: probeMongo,
  postgresql: probePostgres,
  rdp: probeRdp,
};

/** The probe to try first on a well-known port. */
const PORT_HINTS: Record<number, keyof typeof CLIENT_FIRST> = {
  443: 'tls',
  465: 'tls',
  636: 'tls',
  993: 'tls',
  995: 'tls',
  2376: 'tls',
  8443: 'tls',
  80: 'http',
  8080: 'http',
  8000: 'http',
  9200: 'http',
  2375: 'http',
  6379: 'redis',
  11211: 'memcached',
  27017: 'mongodb',
  5432: 'postgresql',
  3389: 'rdp',
};

/** The order client-first probes run on `port`. */
export function probeOrder(port: number): string[] {
  const order = Object.keys(CLIENT_FIRST);
  const hint = PORT_HINTS[port];
  return hint ? [hint, ...order.filter((name) => name !== hint)] : order;
}

/**
 * The identity of the service on an open port. `unknown` with a banner when it spoke something
 * no recogniser knows; `unknown` without one when it answered no probe (silent, closed at once,
 * or flooding), and `details.behaviour` says which, in terms of what was seen: "silent" only of
 * silence. An unknown service is `unfinished`: what it is was not learnt, so nothing is judged.
 */
export async function identifyService(dialer: Dialer, options: IdentifyOptions): Promise<ServiceIdentity> {
  const opened: Conversation[] = [];
  const tracked: Dialer = {
    async plain() {
      const conversation = await dialer.plain();
      opened.push(conversation);
      return conversation;
    },
    async tls() {
      const conversation = await dialer.tls();
      if (conversation !== null && !('alert' in conversation)) opened.push(conversation);
      return conversation;
    },
  };
  const first = await tracked.plain();
  let behaviour: string;
  try {
    const greeting = await first.ask(null, parseGreeting, options.greetingMs);
    if (greeting?.kind === 'identity') return greeting.identity;
    if (greeting?.kind === 'text') return await followText(first, greeting, false);
    if (first.received.length > 0) {
      const said = first.flooded
        ? 'sent more than the read limit without pause'
        : first.cutShort
          ? `began a greeting it did not finish within ${options.greetingMs} ms`
          : 'sent an unrecognised greeting';
      return {
        service: 'unknown',
        tls: false,
        banner: printable(first.received),
        details: { behaviour: said },
        unfinished: `the service could not be identified: it ${said}`,
      };
    }
    behaviour = first.closed ? 'closed the connection without a word' : `stayed silent for ${options.greetingMs} ms`;
  } finally {
    first.close();
  }
  for (const name of probeOrder(options.port)) {
    const identity = await CLIENT_FIRST[name](tracked, options);
    if (identity !== null) return identity;
  }
  const answered = opened.slice(1).filter((conversation) => !conversation.silent).length;
  const probes = `(${probeOrder(options.port).join(', ')})`;
  const full =
    answered > 0
      ? `${behaviour}; answered ${answered} probe(s) with bytes no probe recognised ${probes}`
      : `${behaviour}; answered none of the probes ${probes}`;
  return { service: 'unknown', tls: false, details: { behaviour: full }, unfinished: `the service could not be identified: it ${full}` };
}
