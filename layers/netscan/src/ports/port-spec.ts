import { TOP_TCP_PORTS } from './top-tcp-ports.ts';

/** Named port sets: nmap's most-frequently-open TCP ports (docs/netscan.md). */
export const PORT_SETS = { top100: 100, top1000: 1000 } as const;
export type PortSetName = keyof typeof PORT_SETS;

/** A port specification: a named set, a text of ports and ranges ("22,80,8000-8100"), or a list of ports and range texts. */
export type PortSpec = string | readonly (number | string)[];

/** A specification that does not parse; `message` says which part and why. */
export class PortSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PortSpecError';
  }
}

function isPort(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65_535;
}

function parsePort(text: string, whole: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new PortSpecError(`"${whole}" is not a port or a range (a-b)`);
  const port = Number(text);
  if (!isPort(port)) throw new PortSpecError(`${port} is not a TCP port (1-65535)`);
  return port;
}

function addItem(item: string, into: Set<number>): void {
  const text = item.trim();
  if (text === '') return;
  if (text in PORT_SETS) {
    for (const port of TOP_TCP_PORTS.slice(0, PORT_SETS[text as PortSetName])) into.add(port);
    return;
  }
  const range = /^(\d+)\s*-\s*(\d+)$/.exec(text);
  if (range) {
    const low = parsePort(range[1], text);
    const high = parsePort(range[2], text);
    if (low > high) throw new PortSpecError(`range "${text}" ends before it starts`);
    for (let port = low; port <= high; port += 1) into.add(port);
    return;
  }
  into.add(parsePort(text, text));
}

/**
 * The ports a specification names, without repeats. A named set keeps nmap's order (most often
 * open first, so a scan cut short by its deadline has covered the likeliest ports); anything
 * else is ascending. The legacy Continuous Network `ports` text ("22,80,443", "1-1024") is this
 * syntax; the empty text means the default, `top100`. Items split on commas or whitespace.
 */
export function parsePortSpec(spec: PortSpec): number[] {
  const items = typeof spec === 'string' ? spec.split(/[\s,]+/) : spec.map((item) => (typeof item === 'number' ? String(item) : item));
  if (typeof spec === 'string' && spec.trim() === '') return TOP_TCP_PORTS.slice(0, PORT_SETS.top100);
  if (items.length === 0) throw new PortSpecError('names no port');
  if (items.every((item) => item.trim() in PORT_SETS)) {
    const named = new Set<number>();
    for (const item of items) addItem(item, named);
    return [...named];
  }
  const ports = new Set<number>();
  for (const item of items) addItem(item, ports);
  if (ports.size === 0) throw new PortSpecError('names no port');
  return [...ports].sort((a, b) => a - b);
}
