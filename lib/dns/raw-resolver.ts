import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import type { DecodedPacket } from 'dns-packet';
import { MAX_CHAIN, mapResponse, normaliseName, type DanglingCname } from './answer-mapping.ts';
import type { Nameserver } from './nameservers.ts';
import type { DnsAnswer, RecordType, Resolver } from './resolver.ts';
import { exchangeTcp, exchangeUdp, watchDeadline, type ExchangeResult } from './wire-exchange.ts';

export interface RawResolverOptions {
  servers: readonly Nameserver[];
  /** How long one attempt waits for an answer. */
  timeoutMs: number;
  /** Attempts per query, rotating over the servers; only timeouts and transport errors are retried. */
  attempts: number;
  /** The scan's deadline: pending and later queries end as "unknown" (timeout). */
  signal?: AbortSignal;
}

/** Large enough for DNSKEY and long TXT sets, small enough to avoid IP fragmentation (DNS flag day 2020). */
const EDNS_PAYLOAD = 1232;

/** Sends its own queries with dns-packet: UDP first, TCP when the answer is truncated. */
export function makeRawResolver(options: RawResolverOptions): Resolver {
  if (options.servers.length === 0) throw new Error('no nameserver to query');
  const attempts = Math.max(1, options.attempts);
  const deadline = watchDeadline(options.signal);

  async function ask<T extends RecordType>(name: string, type: T): Promise<DnsAnswer<T> | DanglingCname> {
    let last: DnsAnswer<T> = { status: 'unknown', reason: 'timeout', message: 'scan deadline reached' };
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (options.signal?.aborted) return last;
      const server = options.servers[attempt % options.servers.length];
      const id = randomInt(0, 65536);
      const query = packet.encode({
        type: 'query',
        id,
        flags: packet.RECURSION_DESIRED | packet.AUTHENTIC_DATA,
        questions: [{ type, name, class: 'IN' }],
        additionals: [
          { type: 'OPT', name: '.', udpPayloadSize: EDNS_PAYLOAD, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] },
        ],
      });
      // Each answer is decoded once, by the spoofing guard; the exchange's accepted answer is the last it kept.
      let accepted: DecodedPacket | undefined;
      const accept = (message: Buffer): boolean => {
        const decoded = answersQuery(message, id, name, type);
        if (decoded) accepted = decoded;
        return decoded !== null;
      };
      const exchange = { timeoutMs: options.timeoutMs, deadline, accept };
      let result: ExchangeResult = await exchangeUdp(server, query, exchange);
      if (result.ok && accepted?.flag_tc) {
        accepted = undefined;
        result = await exchangeTcp(server, query, exchange);
        // Over TCP there is no smaller message to fall back to: a truncated answer is incomplete.
        if (result.ok && (accepted as DecodedPacket | undefined)?.flag_tc)
          result = { ok: false, reason: 'error', message: 'the answer over TCP is truncated too' };
      }
      if (!result.ok || accepted === undefined) {
        const reason = result.ok ? 'error' : result.reason;
        last = {
          status: 'unknown',
          reason,
          message: `${name} ${type} via ${server.host}:${server.port}: ${result.ok ? 'answer does not match the query' : result.message}`,
        };
        continue;
      }
      const mapped = mapResponse(accepted, name, type);
      // SERVFAIL/REFUSED are answers from that server: only another server may say otherwise.
      const anotherServerLeft = options.servers.length > 1 && attempt < attempts - 1;
      if (mapped.status === 'unknown' && anotherServerLeft) {
        last = mapped;
        continue;
      }
      return mapped;
    }
    return last;
  }

  return {
    async query<T extends RecordType>(name: string, type: T): Promise<DnsAnswer<T>> {
      let current = normaliseName(name);
      if (!isQueryableName(current)) return { status: 'unknown', reason: 'error', message: `not a valid DNS name: ${name}` };
      for (let hop = 0; hop <= MAX_CHAIN; hop += 1) {
        const answer = await ask(current, type);
        if (answer.status !== 'cname') return answer;
        current = answer.target;
      }
      return { status: 'unknown', reason: 'error', message: `CNAME chain longer than ${MAX_CHAIN} at ${name}` };
    },
  };
}

/**
 * The decoded answer when it answers this query, else null: a response (QR), opcode QUERY, our id,
 * our question in class IN, and answer records in class IN only. Anything else (a NOTIFY, a CH-class
 * answer, a guess at our id) is ignored and the exchange keeps waiting for the genuine answer; the
 * source address and port are checked by the exchange.
 */
function answersQuery(message: Buffer, id: number, name: string, type: RecordType): DecodedPacket | null {
  let decoded: DecodedPacket;
  try {
    decoded = packet.decode(message);
  } catch {
    return null;
  }
  const question = decoded.questions?.[0];
  const matches =
    decoded.id === id &&
    decoded.type === 'response' &&
    (decoded as DecodedPacket & { opcode?: string }).opcode === 'QUERY' &&
    decoded.questions?.length === 1 &&
    question !== undefined &&
    question.type === type &&
    question.class === 'IN' &&
    normaliseName(question.name) === name &&
    (decoded.answers ?? []).every((record) => (record as { class?: string }).class === 'IN');
  return matches ? decoded : null;
}

function isQueryableName(name: string): boolean {
  if (name === '') return true; // the root zone, "."
  if (name.length > 253) return false;
  return name.split('.').every((label) => label.length >= 1 && label.length <= 63);
}
