import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, InternalAddressError } from '../../../lib/guarded-lookup.ts';
import { addressProblem, type TargetPolicy } from '../../domain/network-policy.ts';
import type { HttpPoster } from '../../ports/notification-channels.ts';

/** Bytes of an answer read before the connection is dropped: only the status matters. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs to tenants' endpoints through the connect-time guard, so a webhook URL whose name resolves
 * inside the deployment (loopback, link-local metadata, private ranges unless allowed) is refused
 * when the socket would open, whatever it resolved to when the rule was saved. No redirect is
 * followed (a 3xx is an answer, not a success).
 */
export function makeHttpPoster({ policy, allowLoopback = false }: { policy: TargetPolicy; allowLoopback?: boolean }): HttpPoster {
  const guard: TargetPolicy = { ...policy, allowLoopback: allowLoopback || (policy.allowLoopback ?? false) };
  const lookup = guardedLookup(guard);
  return {
    post(url, { headers, body, timeoutMs }) {
      const target = new URL(url);
      const host = target.hostname.replace(/^\[|\]$/g, '');
      // An IP literal never reaches `lookup`: vet it here.
      if (isIP(host) !== 0) {
        const problem = addressProblem(host, undefined, guard);
        if (problem) return Promise.reject(new InternalAddressError(`${host}: ${problem}`));
      }
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise((resolve, reject) => {
        const outgoing = send(
          target,
          { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, timeout: timeoutMs },
          (answer) => {
            let read = 0;
            answer.on('data', (chunk: Buffer) => {
              read += chunk.length;
              if (read > MAX_ANSWER_BYTES) answer.destroy();
            });
            answer.on('close', () => resolve({ status: answer.statusCode ?? 0 }));
            answer.on('error', () => resolve({ status: answer.statusCode ?? 0 }));
          },
        );
        outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    },
  };
}
