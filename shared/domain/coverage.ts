import { BlockList, isIP } from 'node:net';
import { matchesGlob } from 'node:path';
import type { Coverage } from '../../lib/report.ts';

export type { Coverage };

/** Ports of a coverage's `ports` text ("22,80,8000-8100"); null when it does not parse (then it covers nothing). */
function portsOf(text: string): ((port: number) => boolean) | null {
  const ranges: [number, number][] = [];
  for (const item of text.split(/[\s,]+/)) {
    if (item === '') continue;
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(item);
    if (!match) return null;
    ranges.push([Number(match[1]), Number(match[2] ?? match[1])]);
  }
  return (port) => ranges.some(([low, high]) => port >= low && port <= high);
}

/** Whether `host` (an address or a name) is one of `hosts` (addresses, CIDRs or names). */
function hostIn(host: string, hosts: readonly string[]): boolean {
  const family = isIP(host);
  const blocks = new BlockList();
  for (const entry of hosts) {
    if (entry.toLowerCase() === host.toLowerCase()) return true;
    const [base, bits] = entry.split('/');
    const baseFamily = isIP(base);
    if (family === 0 || baseFamily !== family) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) blocks.addAddress(base, type);
    else if (/^\d{1,3}$/.test(bits)) blocks.addSubnet(base, Number(bits), type);
  }
  return family !== 0 && blocks.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** `tcp:<host>:<port>`, IPv6 in brackets. */
function parseNetworkLocation(location: string): { protocol: string; host: string; port: number } | null {
  const match = /^(tcp|udp):(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(location);
  if (!match) return null;
  return { protocol: match[1], host: match[2] ?? match[3], port: Number(match[4]) };
}

function coversOne(coverage: Coverage, location: string): boolean {
  switch (coverage.kind) {
    case 'target':
      return true;
    case 'network': {
      const where = parseNetworkLocation(location);
      if (!where) return false;
      return coverage.scanned.some(
        (scanned) =>
          scanned.protocol === where.protocol && portsOf(scanned.ports)?.(where.port) === true && hostIn(where.host, scanned.hosts),
      );
    }
    case 'repository': {
      // git:<ref>:head:<path> or git:<ref>:history:<path>; a branch name holds no ':'.
      const match = /^git:([^:]+):(head|history):(.+)$/.exec(location);
      if (!match || match[1] !== coverage.ref) return false;
      if (coverage.paths_ignored.some((glob) => matchesGlob(match[3], glob))) return false;
      return match[2] === 'head' || (coverage.history.read && coverage.history.complete);
    }
    case 'web':
      // web:<path>: covered when this check fetched that path.
      return location.startsWith('web:') && coverage.paths.includes(location.slice(4));
    case 'mail': {
      const match = /^(mail|dkim|list):(.+)$/.exec(location);
      if (!match) return false;
      const names = match[1] === 'mail' ? coverage.surfaces : match[1] === 'dkim' ? coverage.selectors : coverage.lists;
      return names.some((name) => name.toLowerCase() === match[2].toLowerCase());
    }
  }
}

/**
 * Whether a check that examined `coverage` looked at every place an issue was seen (DESIGN §15).
 * No coverage covers nothing; an issue with no locations (from a runner that names none) is
 * covered only by a check that examined the whole target. Every location must be covered: a
 * secret still in a commit the scan did not read is not resolved by a scan of the tip.
 */
export function covers(coverage: Coverage | undefined, locations: readonly string[]): boolean {
  if (coverage === undefined) return false;
  if (locations.length === 0) return coverage.kind === 'target';
  return locations.every((location) => coversOne(coverage, location));
}

/** A coverage in words, for the scan page and the docs. */
export function describeCoverage(coverage: Coverage | undefined): string {
  if (coverage === undefined) return 'nothing said';
  switch (coverage.kind) {
    case 'target':
      return 'the whole target';
    case 'network':
      return coverage.scanned.map((scanned) => `${scanned.protocol} ${scanned.hosts.join(', ')} ports ${scanned.ports}`).join('; ');
    case 'repository':
      return `${coverage.ref}: ${
        coverage.history.read
          ? `history, ${coverage.history.commits} commits${coverage.history.complete ? ' (all)' : ' (cut short)'}`
          : 'tip only'
      }${coverage.paths_ignored.length > 0 ? `; not read: ${coverage.paths_ignored.join(', ')}` : ''}`;
    case 'web':
      return `${coverage.paths.length} path${coverage.paths.length === 1 ? '' : 's'} of ${coverage.origin}`;
    case 'mail':
      return `surfaces ${coverage.surfaces.join(', ')}; selectors ${coverage.selectors.join(', ') || 'none'}; lists ${coverage.lists.join(', ') || 'none'}`;
  }
}
