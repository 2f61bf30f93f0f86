import { isIP } from 'node:net';
import * as z from 'zod';
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import { blockedAddressReason } from '../../../../lib/address-policy.ts';
import type { CheckError } from '../reputation/context.ts';

/**
 * The certificate stream (CertStream WebSocket shape): listen `seconds`, and keep every new
 * certificate naming the domain (or a name under it) or one of the lookalike candidates. Bounded in
 * time, messages and message size; the endpoint is vetted like an HTTP host before connecting.
 */
const updateSchema = z.looseObject({
  message_type: z.string(),
  data: z
    .looseObject({
      leaf_cert: z.looseObject({ all_domains: z.array(z.string().max(300)).max(1_000) }).optional(),
      seen: z.number().optional(),
      cert_index: z.number().optional(),
    })
    .optional(),
});

const MAX_MESSAGE_BYTES = 1024 * 1024;
const MAX_MATCHES = 200;

export interface CertstreamMatch {
  name: string;
  /** The lookalike (or the domain itself) the certificate name matched. */
  matched: string;
  kind: 'domain' | 'lookalike';
  seen: string | null;
  cert_index: number | null;
}

export interface CertstreamResult {
  status: 'ok' | 'error' | 'skipped';
  reason?: string;
  seconds?: number;
  messages?: number;
  certificates?: number;
  matches: CertstreamMatch[];
  errors: CheckError[];
}

export interface CertstreamOptions {
  endpoint: string;
  seconds: number;
  maxMessages: number;
  allowPrivate: boolean;
  allowLoopback: boolean;
  resolver: Resolver;
  signal?: AbortSignal;
}

function error(message: string): CheckError {
  return { surface: 'leak', check: 'certstream', message };
}

async function vetEndpoint(endpoint: string, options: CertstreamOptions): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'the certstream endpoint is not a URL';
  }
  if (url.protocol !== 'wss:' && !(url.protocol === 'ws:' && (options.allowPrivate || options.allowLoopback)))
    return `${url.protocol} endpoints are not used; only wss:`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    const [a, aaaa] = await Promise.all([options.resolver.query(host, 'A'), options.resolver.query(host, 'AAAA')]);
    addresses = [...(a.status === 'found' ? a.records : []), ...(aaaa.status === 'found' ? aaaa.records : [])];
    if (addresses.length === 0) return `${host} has no address`;
  }
  for (const address of addresses) {
    const reason = blockedAddressReason(address, options);
    if (reason) return `${host} resolves to ${address} (${reason})`;
  }
  return null;
}

export async function watchCertstream(
  domain: string,
  lookalikes: ReadonlySet<string>,
  options: CertstreamOptions,
): Promise<CertstreamResult> {
  if (options.seconds <= 0) return { status: 'skipped', reason: 'certstream.seconds is 0 (off)', matches: [], errors: [] };
  const refused = await vetEndpoint(options.endpoint, options);
  if (refused) return { status: 'error', reason: refused, matches: [], errors: [error(refused)] };

  const matches: CertstreamMatch[] = [];
  let messages = 0;
  let certificates = 0;
  const matchName = (raw: string): { matched: string; kind: 'domain' | 'lookalike' } | null => {
    const name = raw.toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
    if (name === domain || name.endsWith(`.${domain}`)) return { matched: domain, kind: 'domain' };
    if (lookalikes.has(name)) return { matched: name, kind: 'lookalike' };
    const parent = name.split('.').slice(1).join('.');
    if (lookalikes.has(parent)) return { matched: parent, kind: 'lookalike' };
    return null;
  };

  return new Promise<CertstreamResult>((resolve) => {
    const errors: CheckError[] = [];
    let finished = false;
    let socket: WebSocket;
    const finish = (status: 'ok' | 'error'): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      try {
        socket.close();
      } catch {
        // Already closed.
      }
      resolve({ status, seconds: options.seconds, messages, certificates, matches, errors });
    };
    const onAbort = (): void => finish('ok');
    const timer = setTimeout(() => finish(errors.length > 0 ? 'error' : 'ok'), options.seconds * 1000);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      socket = new WebSocket(options.endpoint);
    } catch (cause) {
      errors.push(error(`cannot connect: ${(cause as Error).message}`));
      finish('error');
      return;
    }
    socket.addEventListener('message', (event: MessageEvent) => {
      messages += 1;
      const text = typeof event.data === 'string' ? event.data : '';
      if (text.length > MAX_MESSAGE_BYTES) return;
      let parsed;
      try {
        parsed = updateSchema.safeParse(JSON.parse(text));
      } catch {
        return;
      }
      if (!parsed.success || parsed.data.message_type !== 'certificate_update') return;
      certificates += 1;
      const data = parsed.data.data;
      for (const name of data?.leaf_cert?.all_domains ?? []) {
        const match = matchName(name);
        if (
          match &&
          matches.length < MAX_MATCHES &&
          !matches.some((item) => item.name === name && item.cert_index === (data?.cert_index ?? null))
        ) {
          matches.push({
            name: name.toLowerCase(),
            ...match,
            seen: data?.seen !== undefined ? new Date(data.seen * 1000).toISOString() : null,
            cert_index: data?.cert_index ?? null,
          });
        }
      }
      if (messages >= options.maxMessages) finish('ok');
    });
    socket.addEventListener('error', () => {
      errors.push(error(`the stream at ${options.endpoint} failed`));
      finish('error');
    });
    socket.addEventListener('close', () => {
      if (!finished) {
        errors.push(error('the stream closed before the listening window ended'));
        finish('error');
      }
    });
  });
}
