import { isIP } from 'node:net';
import { parsePortSpec, PortSpecError } from './ports/port-spec.ts';
import { DEFAULT_RATE } from './scope.ts';

/** How many addresses a target names: a CIDR block its size, an address or a host name one. */
function addressCount(target: string): number {
  const [address, bits] = target.split('/');
  if (bits === undefined) return 1;
  const family = isIP(address);
  const width = (family === 6 ? 128 : 32) - Number(bits);
  return 2 ** Math.min(width, 52);
}

/**
 * The least time netscan needs for one target (DESIGN §11 admission, docs/resource-classes.md):
 * every address × every port, at `rate` connection attempts a second, with nothing else counted
 * (no time-outs, no probes). A /24 × top1000 at 200/s is 256 × 1,000 ÷ 200 = 1,280 s.
 */
export function minimumScanSeconds(scope: Record<string, unknown>, target: string): { seconds: number; arithmetic: string } | null {
  let ports: number;
  try {
    ports = parsePortSpec((scope.ports as string | (number | string)[] | undefined) ?? 'top100').length;
  } catch (error) {
    if (error instanceof PortSpecError) return null;
    throw error;
  }
  const rate = typeof scope.rate === 'number' && scope.rate > 0 ? scope.rate : DEFAULT_RATE;
  const addresses = addressCount(target);
  const seconds = (addresses * ports) / rate;
  const many = (n: number, one: string, more: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : more}`;
  return {
    seconds,
    arithmetic:
      `${target} is ${many(addresses, 'address', 'addresses')} × ${many(ports, 'port', 'ports')} ` +
      `at ${many(rate, 'connection', 'connections')} a second = ${Math.ceil(seconds).toLocaleString('en-US')} s`,
  };
}
