/**
 * The TCP connect scan: every (address, port) pair, ports outermost so a scan cut short by its
 * deadline has tried the likeliest ports on every address; at most `rate` attempts a second and
 * `maxInFlight` sockets open at once. A connect scan (no raw sockets: Lambda has none) tells
 * open (the handshake completed) from closed (RST: refused) from filtered (no answer before the
 * connect timeout, or an ICMP unreachable), as `nmap -sT` does.
 */
import { mapBounded } from '../../../../lib/concurrency.ts';
import { makePacer, systemClock, type PacerClock } from './pacer.ts';

export type PortState = 'open' | 'closed' | 'filtered';
export type ConnectOutcome = { state: PortState } | { error: string };

/** One connection attempt; it closes any socket it opened. */
export type ConnectAttempt<A> = (address: A, port: number, timeoutMs: number, signal: AbortSignal) => Promise<ConnectOutcome>;

export interface TcpScanOptions<A> {
  addresses: readonly A[];
  ports: readonly number[];
  /** Connection attempts per second. */
  rate: number;
  maxInFlight: number;
  connectTimeoutMs: number;
  /** The scan's deadline: once aborted, no attempt starts. */
  signal: AbortSignal;
  attempt: ConnectAttempt<A>;
  clock?: PacerClock;
}

export interface TcpScanResult<A> {
  open: { address: A; port: number }[];
  errors: { address: A; port: number; message: string }[];
  counts: Record<PortState | 'error' | 'not_attempted', number>;
  /** The most sockets that were connecting at once. */
  peakInFlight: number;
}

export async function scanTcp<A>(options: TcpScanOptions<A>): Promise<TcpScanResult<A>> {
  const { addresses, ports } = options;
  const pacer = makePacer(options.rate, options.clock ?? systemClock);
  const total = addresses.length * ports.length;
  const pairs = Array.from({ length: total }, (_, i) => i);
  const result: TcpScanResult<A> = {
    open: [],
    errors: [],
    counts: { open: 0, closed: 0, filtered: 0, error: 0, not_attempted: 0 },
    peakInFlight: 0,
  };
  let inFlight = 0;
  const outcomes = await mapBounded(
    pairs,
    options.maxInFlight,
    async (i) => {
      await pacer.wait(options.signal);
      if (options.signal.aborted) return false;
      const address = addresses[i % addresses.length];
      const port = ports[Math.floor(i / addresses.length)];
      inFlight += 1;
      result.peakInFlight = Math.max(result.peakInFlight, inFlight);
      let outcome: ConnectOutcome;
      try {
        outcome = await options.attempt(address, port, options.connectTimeoutMs, options.signal);
      } finally {
        inFlight -= 1;
      }
      // An attempt the deadline cut short proves nothing about the port.
      if (options.signal.aborted && !('state' in outcome && outcome.state === 'open')) return false;
      if ('error' in outcome) {
        result.counts.error += 1;
        result.errors.push({ address, port, message: outcome.error });
      } else {
        result.counts[outcome.state] += 1;
        if (outcome.state === 'open') result.open.push({ address, port });
      }
      return true;
    },
    { signal: options.signal },
  );
  // Slots the abort left unstarted are holes, which filter() skips: count the ones that ran.
  let ran = 0;
  for (const outcome of outcomes) if (outcome === true) ran += 1;
  result.counts.not_attempted = total - ran;
  const order = (a: { address: A; port: number }, b: { address: A; port: number }) =>
    addresses.indexOf(a.address) - addresses.indexOf(b.address) || a.port - b.port;
  result.open.sort(order);
  result.errors.sort(order);
  return result;
}
