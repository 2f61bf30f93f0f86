import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { blockedAddressReason } from '../../../../lib/address-policy.ts';
import { openSmtpSession, SmtpError, type SmtpReply, type SmtpSession } from './smtp-client.ts';

/**
 * RCPT validation against the domain's MX (DESIGN §6): a random local part first (is the MX
 * catch-all?), then each candidate, at most `maxProbes` RCPTs in all, over one connection. Results
 * are three-state: a 2xx is accepted, a 5xx rejected, anything else (4xx greylisting, a dropped
 * connection) unknown, never rejected. Under catch-all an accepted address proves nothing and is
 * reported as unverifiable.
 */
export interface SmtpProbeConfig {
  port: number;
  helo: string;
  maxProbes: number;
  timeoutMs: number;
  pauseMs: number;
  allowPrivate: boolean;
  allowLoopback: boolean;
}

export interface MxTarget {
  host: string;
  preference: number;
  ipv4: string[];
  ipv6: string[];
}

export type RcptState = 'accepted' | 'rejected' | 'unknown' | 'unverifiable';
export interface RcptResult {
  address: string;
  state: RcptState;
  code: number | null;
  reply: string;
}

export interface SmtpProbeData {
  status: 'ok' | 'error' | 'skipped';
  reason?: string;
  mx?: string;
  address?: string;
  /** true: the random address was accepted; false: it was rejected; null: the test was inconclusive. */
  catch_all?: boolean | null;
  catch_all_probe?: RcptResult;
  results?: RcptResult[];
  /** Candidates not probed because of max_probes. */
  not_probed?: number;
}

export interface SmtpProbeOutcome {
  data: SmtpProbeData;
  errors: string[];
}

function stateOf(reply: SmtpReply): 'accepted' | 'rejected' | 'unknown' {
  if (reply.code >= 200 && reply.code < 300) return 'accepted';
  if (reply.code >= 500 && reply.code < 600) return 'rejected';
  return 'unknown';
}

/** The MX hosts' addresses in preference order, each vetted like an HTTP host (SSRF guard). */
function addressesToTry(
  mx: readonly MxTarget[],
  policy: { allowPrivate: boolean; allowLoopback: boolean },
): { host: string; address: string; blocked: string | null }[] {
  return [...mx]
    .sort((a, b) => a.preference - b.preference)
    .flatMap((host) =>
      [...host.ipv4, ...host.ipv6]
        .filter((address) => isIP(address) !== 0)
        .map((address) => ({ host: host.host, address, blocked: blockedAddressReason(address, policy) })),
    );
}

export async function probeRecipients(
  domain: string,
  mx: readonly MxTarget[],
  candidates: readonly string[],
  config: SmtpProbeConfig,
  signal?: AbortSignal,
): Promise<SmtpProbeOutcome> {
  if (mx.length === 0) return { data: { status: 'skipped', reason: 'the domain has no MX host to probe' }, errors: [] };
  const errors: string[] = [];
  let session: SmtpSession | null = null;
  let used: { host: string; address: string } | null = null;
  for (const target of addressesToTry(mx, config)) {
    if (target.blocked) {
      errors.push(`${target.host} ${target.address}: not probed (${target.blocked})`);
      continue;
    }
    try {
      session = await openSmtpSession({
        address: target.address,
        port: config.port,
        helo: config.helo,
        timeoutMs: config.timeoutMs,
        pauseMs: config.pauseMs,
        signal,
      });
      if (session.greeting.code !== 220) {
        errors.push(`${target.host} ${target.address}: greeting ${session.greeting.code} ${session.greeting.text}`);
        await session.close();
        session = null;
        continue;
      }
      used = target;
      break;
    } catch (error) {
      errors.push(`${target.host} ${target.address} port ${config.port}: ${(error as Error).message}`);
    }
  }
  if (!session || !used) {
    if (errors.length === 0) errors.push('no MX host has an address');
    // A refused, blocked or timed-out port 25 is an error of this check, never "not catch-all".
    return { data: { status: 'error', reason: 'no MX host accepted an SMTP connection', catch_all: null }, errors };
  }
  errors.length = 0;

  const results: RcptResult[] = [];
  let catchAllProbe: RcptResult | undefined;
  let catchAll: boolean | null = null;
  try {
    let hello = await session.command(`EHLO ${config.helo}`);
    if (hello.code >= 500) hello = await session.command(`HELO ${config.helo}`);
    if (hello.code !== 250) throw new SmtpError('protocol', `EHLO refused: ${hello.code} ${hello.text}`);
    const from = await session.command('MAIL FROM:<>');
    if (from.code !== 250) throw new SmtpError('protocol', `MAIL FROM:<> refused: ${from.code} ${from.text}`);

    const random = `${randomBytes(9).toString('hex')}@${domain}`;
    const probe = await session.command(`RCPT TO:<${random}>`);
    catchAllProbe = { address: random, state: stateOf(probe), code: probe.code, reply: probe.text };
    catchAll = catchAllProbe.state === 'accepted' ? true : catchAllProbe.state === 'rejected' ? false : null;

    for (const address of candidates.slice(0, Math.max(0, config.maxProbes - 1))) {
      const reply = await session.command(`RCPT TO:<${address}>`);
      const state = stateOf(reply);
      results.push({
        address,
        state: state === 'accepted' && catchAll !== false ? 'unverifiable' : state,
        code: reply.code,
        reply: reply.text,
      });
    }
  } catch (error) {
    errors.push(`${used.host} ${used.address}: ${(error as Error).message}`);
  } finally {
    await session.close();
  }
  // Whatever the dropped connection left unasked is unknown, never rejected.
  const asked = new Set(results.map((result) => result.address));
  const probed = candidates.slice(0, Math.max(0, config.maxProbes - 1));
  for (const address of probed)
    if (!asked.has(address)) results.push({ address, state: 'unknown', code: null, reply: 'not asked: the session ended' });

  return {
    data: {
      status: errors.length > 0 ? 'error' : 'ok',
      mx: used.host,
      address: used.address,
      catch_all: catchAll,
      ...(catchAllProbe ? { catch_all_probe: catchAllProbe } : {}),
      results,
      not_probed: Math.max(0, candidates.length - probed.length),
    },
    errors,
  };
}
