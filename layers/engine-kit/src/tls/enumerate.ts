/**
 * Protocol and cipher-suite enumeration over raw ClientHellos. For each version: one hello with
 * every suite says whether the version is served; then the suites are split into groups and each
 * group is narrowed down independently (offer the group, note the suite the server picks, offer the
 * rest again, until it refuses), the groups in parallel under the per-target bound. A server that
 * accepts n suites costs about n + groups connections per version, whatever its preference order.
 */
import { mapBounded } from '../../../../lib/concurrency.ts';
import { type Connector, type ProbeTiming, probeHello, probeSslv2 } from './probe.ts';
import { NotTls, ProtocolVersion, versionName } from './records.ts';
import { LEGACY_SUITES, SSLV2_CIPHER_KINDS, type Suite, TLS13_SUITES, suiteByCode } from './suites.ts';

const KNOWN_VERSIONS = new Set<number>(Object.values(ProtocolVersion));

export const ENUMERATED_VERSIONS = [
  ProtocolVersion.ssl3,
  ProtocolVersion.tls10,
  ProtocolVersion.tls11,
  ProtocolVersion.tls12,
  ProtocolVersion.tls13,
] as const;

export interface AcceptedSuite {
  suite: Suite;
  /** DH prime size, for DHE suites whose key exchange the probe read. */
  dhBits?: number;
}

export interface VersionResult {
  version: number;
  accepted: boolean;
  /** Why the first hello was refused (an alert, a close, a lower version). */
  refusal?: string;
  suites: AcceptedSuite[];
}

export interface Enumeration {
  sslv2: { accepted: boolean; cipherKinds: string[]; refusal?: string };
  versions: VersionResult[];
}

export interface EnumerateOptions {
  connect: Connector;
  sni?: string;
  timing: ProbeTiming;
  /** Connections in flight at once against this endpoint. */
  concurrency: number;
  /** Groups each version's suites are split into. */
  groups?: number;
}

function splitIntoGroups<T>(items: readonly T[], groups: number): T[][] {
  const size = Math.ceil(items.length / Math.max(1, groups));
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

type Pick = { kind: 'picked'; accepted: AcceptedSuite } | { kind: 'refused'; reason: string };

async function pick(version: number, offered: readonly Suite[], options: EnumerateOptions): Promise<Pick> {
  const outcome = await probeHello(
    options.connect,
    { hello: { version, suites: offered.map((s) => s.code), sni: options.sni } },
    options.timing,
  );
  if (outcome.kind === 'refused') return outcome;
  const answered = outcome.hello.version;
  // A lower version is how a server refuses ours; anything else is a ServerHello no client could
  // have asked for, and proves nothing either way.
  if (answered < version && KNOWN_VERSIONS.has(answered)) {
    return { kind: 'refused', reason: `the server answered with ${versionName(answered)}` };
  }
  if (answered !== version) throw new NotTls(`the server answered a ${versionName(version)} hello with version 0x${answered.toString(16)}`);
  if (!offered.some((suite) => suite.code === outcome.hello.suite)) {
    throw new NotTls(`the server chose suite 0x${outcome.hello.suite.toString(16)}, which was not offered`);
  }
  return { kind: 'picked', accepted: { suite: suiteByCode(outcome.hello.suite), dhBits: outcome.dhBits } };
}

/**
 * Narrows one group down to every suite the server accepts from it, adding each to `accepted` as
 * it is found: a probe that fails halfway keeps what the earlier ones proved.
 */
async function narrow(version: number, group: readonly Suite[], options: EnumerateOptions, accepted: AcceptedSuite[]): Promise<void> {
  let remaining = [...group];
  while (remaining.length > 0) {
    const result = await pick(version, remaining, options);
    if (result.kind === 'refused') break;
    accepted.push(result.accepted);
    accepted.sort((a, b) => a.suite.code - b.suite.code);
    remaining = remaining.filter((suite) => suite.code !== result.accepted.suite.code);
  }
}

/** The first hello of a version: all its suites at once. */
export async function probeVersion(version: number, options: EnumerateOptions): Promise<VersionResult & { pending: Suite[][] }> {
  const all = version === ProtocolVersion.tls13 ? TLS13_SUITES : LEGACY_SUITES;
  const first = await pick(version, all, options);
  if (first.kind === 'refused') return { version, accepted: false, refusal: first.reason, suites: [], pending: [] };
  const rest = all.filter((suite) => suite.code !== first.accepted.suite.code);
  const pending = version === ProtocolVersion.tls13 ? [rest] : splitIntoGroups(rest, options.groups ?? 4);
  return { version, accepted: true, suites: [first.accepted], pending };
}

/**
 * Work items that finish an accepted version's suite list: one per group, each a chain of
 * connections one after another, so a pool of width n keeps at most n connections open.
 */
export function narrowingTasks(result: VersionResult & { pending: Suite[][] }, options: EnumerateOptions): Array<() => Promise<void>> {
  return result.pending.map((group) => () => narrow(result.version, group, options, result.suites));
}

export async function sslv2Result(options: EnumerateOptions): Promise<Enumeration['sslv2']> {
  const outcome = await probeSslv2(
    options.connect,
    SSLV2_CIPHER_KINDS.map(([kind]) => kind),
    options.timing,
  );
  const names = new Map(SSLV2_CIPHER_KINDS);
  return outcome.kind === 'accepted'
    ? { accepted: true, cipherKinds: outcome.cipherKinds.map((kind) => names.get(kind) ?? `0x${kind.toString(16)}`) }
    : { accepted: false, cipherKinds: [], refusal: outcome.reason };
}

/** Every version from SSLv2 to TLS 1.3 and the suites accepted under each (the two phases, pooled). */
export async function enumerate(options: EnumerateOptions): Promise<Enumeration> {
  let sslv2: Enumeration['sslv2'] = { accepted: false, cipherKinds: [] };
  const firsts: Array<() => Promise<unknown>> = [
    async () => (sslv2 = await sslv2Result(options)),
    ...ENUMERATED_VERSIONS.map((version) => () => probeVersion(version, options)),
  ];
  const probed = (await mapBounded(firsts, options.concurrency, (task) => task(), { signal: options.timing.signal })).slice(1) as Array<
    VersionResult & { pending: Suite[][] }
  >;
  await mapBounded(
    probed.flatMap((result) => narrowingTasks(result, options)),
    options.concurrency,
    (task) => task(),
    { signal: options.timing.signal },
  );
  return { sslv2, versions: probed.map(({ pending: _pending, ...result }) => result) };
}
