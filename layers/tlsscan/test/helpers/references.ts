import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TlsEndpointResult } from '../../../engine-kit/src/tls/index.ts';

/**
 * Runs the independent references (sslscan, testssl.sh) on a local port and reads their verdicts
 * from their machine-readable output (sslscan's XML, testssl's JSON). The reference test and
 * bench/tlsscan.ts both use this.
 */
export const PROTOCOLS = ['SSLv2', 'SSLv3', 'TLSv1.0', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export interface Verdicts {
  protocols: Record<Protocol, boolean>;
  insecure: boolean;
  sweet32: boolean;
}

function run(command: string, args: string[], timeoutMs = 170_000): Promise<void> {
  // Both references exit non-zero when they find problems; their output files are what counts.
  return new Promise((resolve) => execFile(command, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, () => resolve()));
}

export interface SslscanResult {
  protocols: Record<Protocol, boolean>;
  /** Accepted suite codes per protocol, as sslscan lists them. */
  suites: Map<Protocol, Set<number>>;
  names: Array<{ protocol: Protocol; name: string; dhBits?: number }>;
}

export async function sslscan(port: number): Promise<SslscanResult> {
  const file = join(await mkdtemp(join(tmpdir(), 'tlsscan-sslscan-')), 'out.xml');
  await run('sslscan', ['--no-colour', `--xml=${file}`, `127.0.0.1:${port}`]);
  const xml = await readFile(file, 'utf8');
  const protocols = Object.fromEntries(PROTOCOLS.map((p) => [p, false])) as Record<Protocol, boolean>;
  for (const m of xml.matchAll(/<protocol type="(ssl|tls)" version="([\d.]+)" enabled="(\d)"/g)) {
    protocols[(m[1] === 'ssl' ? `SSLv${m[2]}` : `TLSv${m[2]}`) as Protocol] = m[3] === '1';
  }
  const suites = new Map<Protocol, Set<number>>();
  const names: SslscanResult['names'] = [];
  for (const m of xml.matchAll(/<cipher [^>]*>/g)) {
    const attr = (name: string): string | undefined => new RegExp(`\\s${name}="([^"]*)"`).exec(m[0])?.[1];
    const protocol = attr('sslversion') as Protocol;
    if (!suites.has(protocol)) suites.set(protocol, new Set());
    suites.get(protocol)!.add(parseInt(attr('id')!, 16));
    const dhBits = attr('dhebits');
    names.push({ protocol, name: attr('cipher')!, dhBits: dhBits ? Number(dhBits) : undefined });
  }
  return { protocols, suites, names };
}

/** sslscan prints OpenSSL names for suites OpenSSL knows and IANA names for the others. */
export function sslscanVerdicts(
  result: SslscanResult,
): Omit<Verdicts, 'protocols'> & { noForwardSecrecy: boolean; weakDh: boolean | null } {
  const names = result.names.map((n) => n.name);
  const insecure = names.some(
    (name) => /NULL|ADH|AECDH|_anon_|EXP|RC4/.test(name) || (/(^|[-_])DES[-_]CBC[-_](SHA|MD5)/.test(name) && !/CBC3|3DES/.test(name)),
  );
  const sweet32 = names.some((name) => /DES-CBC3|3DES|IDEA/.test(name));
  const legacy = result.names.filter((n) => n.protocol !== 'TLSv1.3');
  const noForwardSecrecy = legacy.some((n) => !/ECDHE|DHE|EDH|ADH|AECDH|_anon_/.test(n.name));
  const measured = result.names.filter((n) => n.dhBits !== undefined);
  return { insecure, sweet32, noForwardSecrecy, weakDh: measured.length > 0 ? measured.some((n) => n.dhBits! < 2048) : null };
}

export async function testssl(port: number, checks: readonly string[] = ['--protocols', '--std'], timeoutMs?: number): Promise<Verdicts> {
  const file = join(await mkdtemp(join(tmpdir(), 'tlsscan-testssl-')), 'out.json');
  await run(
    'testssl',
    [...checks, '--quiet', '--color', '0', '--warnings', 'off', '--nodns', 'none', '--jsonfile', file, `127.0.0.1:${port}`],
    timeoutMs,
  );
  const entries = JSON.parse(await readFile(file, 'utf8')) as Array<{ id: string; finding: string }>;
  const offered = (id: string): boolean => {
    const entry = entries.find((e) => e.id === id);
    if (!entry) throw new Error(`testssl reported no ${id}: ${JSON.stringify(entries.map((e) => e.id))}`);
    return !/^not offered/.test(entry.finding);
  };
  const ids: Record<Protocol, string> = {
    SSLv2: 'SSLv2',
    SSLv3: 'SSLv3',
    'TLSv1.0': 'TLS1',
    'TLSv1.1': 'TLS1_1',
    'TLSv1.2': 'TLS1_2',
    'TLSv1.3': 'TLS1_3',
  };
  return {
    protocols: Object.fromEntries(PROTOCOLS.map((p) => [p, offered(ids[p])])) as Record<Protocol, boolean>,
    insecure: ['cipherlist_NULL', 'cipherlist_aNULL', 'cipherlist_EXPORT', 'cipherlist_LOW'].some(offered),
    sweet32: offered('cipherlist_3DES_IDEA'),
  };
}

export function tlsscanProtocols(result: TlsEndpointResult): Record<Protocol, boolean> {
  return Object.fromEntries(result.protocols.map((p) => [p.protocol, p.accepted === true])) as Record<Protocol, boolean>;
}
