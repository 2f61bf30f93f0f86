/**
 * medscan's HTTP GET (FHIR, DICOMweb, Orthanc): no credentials ever, bodies capped, the whole
 * exchange bounded in time, and every hop's host resolved once and vetted by the target policy
 * (lib/target-policy.ts) before the connection goes to the vetted address, so a redirect to a
 * forbidden address is refused, never followed. Plain http is allowed: a medical server on http is
 * what the scan reports on. Certificates are not judged here (tlsscan does that): the question is
 * whether data answers without authentication.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget, TargetRefused, type TargetPolicy } from '../../../lib/target-policy.ts';

export interface HttpAnswer {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
}

export type HttpFailure = 'refused' | 'timeout' | 'too_large' | 'network' | 'forbidden_redirect' | 'too_many_redirects';

export class HttpFailed extends Error {
  override readonly name = 'HttpFailed';
  constructor(
    readonly code: HttpFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface GetOptions {
  accept: string;
  maxBytes: number;
  timeoutMs: number;
  signal: AbortSignal;
}

export type HttpGet = (url: string, options: GetOptions) => Promise<HttpAnswer>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;

export function makeHttpGet(policy: TargetPolicy, userAgent: string): HttpGet {
  return async (url, options) => {
    const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
    let target = new URL(url);
    for (let hop = 0; ; hop += 1) {
      let addresses;
      try {
        addresses = await resolveTarget(target.hostname, policy);
      } catch (error) {
        if (error instanceof TargetRefused && hop > 0)
          throw new HttpFailed('forbidden_redirect', `a redirect to ${target.host} was refused: ${error.message}`);
        throw error;
      }
      const answer = await getOnce(target, addresses[0], options, signal, userAgent);
      if (!('location' in answer)) return answer;
      if (hop >= MAX_REDIRECTS) throw new HttpFailed('too_many_redirects', `more than ${MAX_REDIRECTS} redirects from ${url}`);
      const next = new URL(answer.location, target);
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw new HttpFailed('forbidden_redirect', `a redirect to a ${next.protocol} URL was refused`);
      target = next;
    }
  };
}

function getOnce(
  target: URL,
  address: { address: string; family: 4 | 6 },
  options: GetOptions,
  signal: AbortSignal,
  userAgent: string,
): Promise<HttpAnswer | { location: string }> {
  return new Promise((resolve, reject) => {
    const pinned: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [address]);
      else callback(null, address.address, address.family);
    };
    const client = target.protocol === 'https:' ? https : http;
    const fail = (error: HttpFailed): void => {
      request.destroy();
      reject(error);
    };
    const request = client.request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port === '' ? undefined : Number(target.port),
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers: { 'user-agent': userAgent, accept: options.accept, 'accept-encoding': 'identity' },
        lookup: pinned,
        agent: false,
        signal,
        rejectUnauthorized: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (REDIRECTS.has(status) && response.headers.location) {
          response.destroy();
          request.destroy();
          return resolve({ location: response.headers.location });
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > options.maxBytes)
          return fail(new HttpFailed('too_large', `${target.pathname}: a ${declared}-byte body, over the ${options.maxBytes}-byte cap`));
        const chunks: Buffer[] = [];
        let total = 0;
        response.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > options.maxBytes)
            fail(new HttpFailed('too_large', `${target.pathname}: the body passed the ${options.maxBytes}-byte cap`));
          else chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({ url: target.href, status, contentType: String(response.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }),
        );
        response.on('error', (error) => reject(failure(error, signal, target)));
      },
    );
    request.on('error', (error) => reject(failure(error, signal, target)));
    request.end();
  });
}

function failure(error: NodeJS.ErrnoException, signal: AbortSignal, target: URL): HttpFailed {
  if (error instanceof HttpFailed) return error;
  if (signal.aborted) return new HttpFailed('timeout', `${target.origin}: no complete answer in time`);
  if (error.code === 'ECONNREFUSED') return new HttpFailed('refused', `${target.origin}: connection refused`);
  return new HttpFailed('network', `${target.origin}: ${error.code ?? error.message}`);
}
