/**
 * A full scan of one TLS endpoint: the library function behind `tlsscan scan` and what netscan
 * calls per TLS port. Two pooled phases under one per-endpoint bound: first one hello per protocol
 * version (and SSLv2); then, for the versions the server speaks, the suite narrowing and the other
 * probes (certificate chain, compression, Heartbleed, HSTS) side by side. Each part records its
 * rules; a part that fails records `error` for its rules and never a finding.
 */
import { mapBounded } from '../../../../lib/concurrency.ts';
import type { Deadline } from '../deadline.ts';
import type { Progress } from '../progress.ts';
import type { VettedAddress } from '../../../../lib/target-policy.ts';
import { CERTIFICATE_RULES, evaluateChain } from './certificate.ts';
import { Extension } from './client-hello.ts';
import { type Endpoint, type ConnectionLimits, makeConnector, openNodeTls } from './connection.ts';
import { type Enumeration, type VersionResult, narrowingTasks, probeVersion, sslv2Result, ENUMERATED_VERSIONS } from './enumerate.ts';
import { probeHeartbleed } from './heartbleed.ts';
import { fetchResponseHead, judgeHsts } from './hsts.ts';
import { type Connector, type ProbeTiming, probeHello } from './probe.ts';
import { ProtocolVersion, versionName } from './records.ts';
import type { ServerHello } from './server-hello.ts';
import { type RuleResult, RuleResults } from './rule-results.ts';
import { type StartTls, defaultStartTls, negotiateStartTls, preambleName } from './starttls.ts';
import { LEGACY_SUITES, type Suite, insecureReasons } from './suites.ts';
import { SocketReader } from '../socket-reader.ts';
import { connectTcp } from '../../../../lib/connect.ts';
import type { TlsRuleId } from './catalogue.ts';
import { isIP } from 'node:net';

export interface TlsEndpointOptions {
  /** The name the target was given as (used for SNI, the certificate name and the Host header). */
  host: string;
  /** The address to connect to, vetted by the target policy. */
  address: VettedAddress;
  port: number;
  /** Server name to send and match; default `host` (none for an IP address). */
  sni?: string;
  /** Default from the port (DESIGN §12). */
  starttls?: StartTls;
  /** Awaited before every connection to the endpoint (vdiscan's RDP pacing). */
  beforeConnect?: () => Promise<void>;
  /** Check HTTP headers (HSTS); default true on port 443. */
  http?: boolean;
  /** PEM trust anchors added to Mozilla's roots. */
  extraRoots?: readonly string[];
  deadline: Deadline;
  progress?: Progress;
  /** Connections in flight at once against this endpoint (default 6). */
  concurrency?: number;
  /** Longest wait for one read (default 10 s, never past the deadline). */
  readTimeoutMs?: number;
  now?: () => Date;
}

export interface TlsEndpointResult {
  /** host:port, the fingerprint key of every finding. */
  endpoint: string;
  rules: RuleResult[];
  /** What the server accepts: every version probed and, when accepted, its suites (IANA names). */
  protocols: Array<{ protocol: string; accepted: boolean | null; suites: string[] }>;
}

const PROTOCOL_RULES: readonly TlsRuleId[] = ['tls.protocol.sslv3', 'tls.protocol.tls10', 'tls.protocol.tls11', 'tls.protocol.no_modern'];
const SUITE_RULES: readonly TlsRuleId[] = [
  'tls.cipher.insecure',
  'tls.cipher.sweet32',
  'tls.cipher.no_forward_secrecy',
  'tls.dh.weak_group',
];
const HANDSHAKE_RULES: readonly TlsRuleId[] = ['tls.renegotiation.insecure', 'tls.compression.enabled', 'tls.heartbleed'];
const ALL_BUT_STARTTLS: readonly TlsRuleId[] = [
  ...PROTOCOL_RULES,
  ...SUITE_RULES,
  ...CERTIFICATE_RULES,
  ...HANDSHAKE_RULES,
  'tls.hsts.missing',
];

const MAX_CONNECTION_BYTES = 512 * 1024;

type Attempt<T> = { ok: true; value: T } | { ok: false; message: string };

export async function scanTlsEndpoint(options: TlsEndpointOptions): Promise<TlsEndpointResult> {
  const endpointLabel = `${isIP(options.host) === 6 ? `[${options.host}]` : options.host}:${options.port}`;
  const results = new RuleResults();
  const scan = new EndpointScan(options, endpointLabel, results);
  try {
    await scan.run();
  } catch (error) {
    // A bug or an unexpected failure: every rule without a result says so instead of a crash.
    results.error(results.unfinished(), scan.describe(error));
  }
  const unfinished = results.unfinished();
  if (unfinished.length > 0) results.error(unfinished, options.deadline.expired() ? "the scan's deadline passed" : 'the check did not run');
  return { endpoint: endpointLabel, rules: results.results(), protocols: scan.inventory };
}

class EndpointScan {
  private readonly endpoint: Endpoint;
  private readonly limits: ConnectionLimits;
  private readonly connect: Connector;
  private readonly timing: ProbeTiming;
  private readonly sni: string | undefined;
  private readonly concurrency: number;
  /** The full TLS 1.2-or-older handshake the certificate check read (renegotiation_info is judged on it). */
  private bestHello: ServerHello | undefined;
  private bestHelloError: string | undefined;
  /** Filled as the probes answer; `accepted: null` when a version's probe failed. */
  inventory: TlsEndpointResult['protocols'] = [];

  constructor(
    private readonly options: TlsEndpointOptions,
    private readonly label: string,
    private readonly results: RuleResults,
  ) {
    const starttls = options.starttls ?? defaultStartTls(options.port);
    this.endpoint = { address: options.address, port: options.port, starttls, beforeConnect: options.beforeConnect };
    const readTimeoutMs = Math.max(1, Math.min(options.readTimeoutMs ?? 10_000, options.deadline.remainingMs()));
    this.limits = { connectTimeoutMs: readTimeoutMs, readTimeoutMs, signal: options.deadline.signal, maxBytes: MAX_CONNECTION_BYTES };
    this.connect = makeConnector(this.endpoint, this.limits);
    this.timing = { readTimeoutMs, signal: options.deadline.signal };
    this.sni = options.sni ?? (isIP(options.host) ? undefined : options.host);
    this.concurrency = options.concurrency ?? 6;
  }

  describe(error: unknown): string {
    if (this.options.deadline.expired()) return "the scan's deadline passed";
    return error instanceof Error ? error.message : String(error);
  }

  private async attempt<T>(work: () => Promise<T>): Promise<Attempt<T>> {
    try {
      return { ok: true, value: await work() };
    } catch (error) {
      return { ok: false, message: this.describe(error) };
    }
  }

  private finding(
    detail: string,
    evidence: Record<string, unknown>,
  ): { detail: string; evidence: Record<string, unknown>; fingerprint_key: string; subject: string; locations: string[] } {
    return {
      detail,
      evidence: { endpoint: this.label, ...evidence },
      fingerprint_key: this.label,
      subject: this.label,
      locations: [`tcp:${this.label}`],
    };
  }

  async run(): Promise<void> {
    if (this.endpoint.starttls === 'none') {
      this.results.skip('tls.starttls.unavailable', 'not a mail port: no STARTTLS expected');
    } else if (!(await this.checkStartTls())) {
      return;
    }
    const progress = this.options.progress;
    const signal = this.options.deadline.signal;

    // Phase 1: one hello per version, and SSLv2.
    const enumerateOptions = { connect: this.connect, sni: this.sni, timing: this.timing, concurrency: this.concurrency };
    const [sslv2, ...firsts] = await mapBounded(
      [null, ...ENUMERATED_VERSIONS],
      this.concurrency,
      async (version) =>
        version === null
          ? this.attempt(() => sslv2Result(enumerateOptions)).then((r) => ({ kind: 'sslv2' as const, r }))
          : this.attempt(() => probeVersion(version, enumerateOptions)).then((r) => ({ kind: 'version' as const, version, r })),
      { signal },
    );
    const versions = firsts.filter((entry) => entry !== undefined);
    progress?.('tls.protocols', {
      endpoint: this.label,
      accepted: versions
        .filter((v) => v.kind === 'version' && v.r.ok && v.r.value.accepted)
        .map((v) => versionName((v as { version: number }).version)),
    });
    const accepted = versions.flatMap((entry) => (entry.kind === 'version' && entry.r.ok && entry.r.value.accepted ? [entry.r.value] : []));
    const legacy = accepted.filter((v) => v.version <= ProtocolVersion.tls12);
    const best = legacy.at(-1);

    // Phase 2: narrowing of every accepted version, and the other probes.
    const suiteErrors: string[] = [];
    const narrowing = accepted.flatMap((result) =>
      narrowingTasks(result, enumerateOptions).map((task) => async () => {
        const outcome = await this.attempt(task);
        if (!outcome.ok) suiteErrors.push(`${versionName(result.version)}: ${outcome.message}`);
      }),
    );
    const others: Array<() => Promise<void>> = [
      () => this.checkCertificate(best, accepted.length > 0),
      () => this.checkCompression(best, accepted.length > 0),
      () => this.checkHeartbleed(best, accepted.length > 0),
      () => this.checkHsts(accepted.length > 0),
    ];
    await mapBounded([...others, ...narrowing], this.concurrency, (task) => task(), { signal });

    this.inventory = [
      sslv2?.kind === 'sslv2' && sslv2.r.ok
        ? { protocol: 'SSLv2', accepted: sslv2.r.value.accepted, suites: sslv2.r.value.cipherKinds }
        : { protocol: 'SSLv2', accepted: null, suites: [] },
      ...versions.flatMap((entry) =>
        entry.kind === 'version'
          ? [
              {
                protocol: versionName(entry.version),
                accepted: entry.r.ok ? entry.r.value.accepted : null,
                suites: entry.r.ok ? entry.r.value.suites.map((a) => a.suite.name) : [],
              },
            ]
          : [],
      ),
    ];
    this.recordProtocols(sslv2?.kind === 'sslv2' ? sslv2.r : { ok: false, message: 'the SSLv2 probe did not run' }, versions);
    if (accepted.length === 0) {
      const reason = this.noHandshakeReason(versions);
      this.results.error(SUITE_RULES, reason);
    } else {
      this.recordSuites(accepted, suiteErrors);
    }
    if (best) this.recordRenegotiation(best);
    else if (accepted.length > 0) this.results.pass('tls.renegotiation.insecure', 'Only TLS 1.3 is served, which has no renegotiation.');
    else this.results.error('tls.renegotiation.insecure', this.noHandshakeReason(versions));
  }

  private noHandshakeReason(versions: Array<{ kind: string; r: Attempt<unknown> }>): string {
    const failed = versions.find((entry) => !entry.r.ok);
    return failed && !failed.r.ok ? `no TLS handshake: ${failed.r.message}` : 'the server accepted no protocol version tlsscan offered';
  }

  /** Returns false when the scan cannot go on (no STARTTLS, or the preamble failed). */
  private async checkStartTls(): Promise<boolean> {
    const protocol = this.endpoint.starttls as Exclude<StartTls, 'none'>;
    const name = preambleName(protocol);
    const outcome = await this.attempt(async () => {
      await this.endpoint.beforeConnect?.();
      const socket = await connectTcp({
        address: this.endpoint.address,
        port: this.endpoint.port,
        timeoutMs: this.limits.connectTimeoutMs,
        signal: this.limits.signal,
      });
      try {
        const reader = new SocketReader(socket, 64 * 1024);
        return await negotiateStartTls(protocol, {
          reader,
          write: (bytes) => socket.write(bytes),
          timeoutMs: this.limits.readTimeoutMs,
          signal: this.limits.signal,
        });
      } finally {
        socket.destroy();
      }
    });
    if (!outcome.ok) {
      this.results.error(['tls.starttls.unavailable', ...ALL_BUT_STARTTLS], `${name}: ${outcome.message}`);
      return false;
    }
    if (outcome.value.kind === 'unavailable') {
      this.results.fail(
        'tls.starttls.unavailable',
        this.finding(`${this.label} speaks ${protocol.toUpperCase()} without offering ${protocol === 'rdp' ? 'TLS' : 'STARTTLS'}.`, {
          protocol,
          answer: outcome.value.evidence,
        }),
      );
      this.results.skip(
        ALL_BUT_STARTTLS,
        `the server does not offer ${protocol === 'rdp' ? 'TLS' : 'STARTTLS'}, so there is no TLS to check`,
      );
      return false;
    }
    if (outcome.value.kind === 'deferred') {
      // Offered, so no finding; refused for now, so nothing about the TLS behind it is known.
      this.results.pass('tls.starttls.unavailable', `${name} is offered (${outcome.value.evidence}).`);
      this.results.error(ALL_BUT_STARTTLS, `${name} is offered but was refused for now: ${outcome.value.evidence}`);
      return false;
    }
    this.results.pass('tls.starttls.unavailable', `${name} is offered.`);
    return true;
  }

  private recordProtocols(
    sslv2: Attempt<Enumeration['sslv2']>,
    versions: Array<{ kind: 'sslv2' | 'version'; version?: number; r: Attempt<unknown> }>,
  ): void {
    const byVersion = new Map<number, Attempt<VersionResult>>();
    for (const entry of versions) if (entry.kind === 'version') byVersion.set(entry.version!, entry.r as Attempt<VersionResult>);
    const state = (version: number): Attempt<VersionResult> =>
      byVersion.get(version) ?? { ok: false, message: "the scan's deadline passed" };
    const ruleFor: Array<[TlsRuleId, number]> = [
      ['tls.protocol.tls10', ProtocolVersion.tls10],
      ['tls.protocol.tls11', ProtocolVersion.tls11],
    ];
    for (const [rule, version] of ruleFor) {
      const result = state(version);
      if (!result.ok) this.results.error(rule, `${versionName(version)} probe: ${result.message}`);
      else if (result.value.accepted)
        this.results.fail(rule, this.finding(`${this.label} accepts ${versionName(version)}.`, { protocol: versionName(version) }));
      else this.results.pass(rule, `${versionName(version)} refused (${result.value.refusal}).`);
    }
    const ssl3 = state(ProtocolVersion.ssl3);
    const acceptedOld = [...(sslv2.ok && sslv2.value.accepted ? ['SSLv2'] : []), ...(ssl3.ok && ssl3.value.accepted ? ['SSLv3'] : [])];
    if (acceptedOld.length > 0) {
      this.results.fail(
        'tls.protocol.sslv3',
        this.finding(`${this.label} accepts ${acceptedOld.join(' and ')}.`, {
          protocols: acceptedOld,
          ...(sslv2.ok && sslv2.value.accepted ? { sslv2_cipher_kinds: sslv2.value.cipherKinds } : {}),
        }),
      );
    }
    if (!sslv2.ok) this.results.error('tls.protocol.sslv3', `SSLv2 probe: ${sslv2.message}`);
    if (!ssl3.ok) this.results.error('tls.protocol.sslv3', `SSLv3 probe: ${ssl3.message}`);
    if (sslv2.ok && ssl3.ok && acceptedOld.length === 0) this.results.pass('tls.protocol.sslv3', 'SSLv2 and SSLv3 refused.');

    const tls12 = state(ProtocolVersion.tls12);
    const tls13 = state(ProtocolVersion.tls13);
    const modern = [tls12, tls13]
      .filter((r) => r.ok && r.value.accepted)
      .map((r) => versionName((r as { value: VersionResult }).value.version));
    if (modern.length > 0) this.results.pass('tls.protocol.no_modern', `${modern.join(' and ')} accepted.`);
    else if (tls12.ok && tls13.ok) {
      this.results.fail(
        'tls.protocol.no_modern',
        this.finding(`${this.label} refuses both TLS 1.2 and TLS 1.3.`, { tls12: tls12.value.refusal, tls13: tls13.value.refusal }),
      );
    } else {
      this.results.error('tls.protocol.no_modern', [tls12, tls13].flatMap((r) => (r.ok ? [] : [r.message])).join('; '));
    }
  }

  private recordSuites(accepted: readonly VersionResult[], suiteErrors: readonly string[]): void {
    const legacy = accepted.filter((v) => v.version <= ProtocolVersion.tls12);
    const listing = (pickSuite: (suite: Suite) => boolean): Record<string, string[]> =>
      Object.fromEntries(
        accepted
          .map((v) => [versionName(v.version), v.suites.filter((a) => pickSuite(a.suite)).map((a) => a.suite.name)] as const)
          .filter(([, names]) => names.length > 0),
      );
    const insecure = listing((suite) => insecureReasons(suite).length > 0);
    const insecureNames = [...new Set(Object.values(insecure).flat())];
    if (insecureNames.length > 0) {
      const reasons = [...new Set(accepted.flatMap((v) => v.suites.flatMap((a) => insecureReasons(a.suite))))];
      this.results.fail(
        'tls.cipher.insecure',
        this.finding(
          `${this.label} accepts ${insecureNames.length} insecure suite(s) (${reasons.join(', ')}): ${insecureNames.slice(0, 8).join(', ')}.`,
          {
            suites_by_protocol: insecure,
            categories: reasons,
          },
        ),
      );
    }
    const block64 = listing((suite) => suite.block64);
    const block64Names = [...new Set(Object.values(block64).flat())];
    if (block64Names.length > 0) {
      this.results.fail(
        'tls.cipher.sweet32',
        this.finding(`${this.label} accepts 64-bit block suites: ${block64Names.join(', ')}.`, { suites_by_protocol: block64 }),
      );
    }
    const noFs = Object.fromEntries(
      legacy
        .map((v) => [versionName(v.version), v.suites.filter((a) => !a.suite.forwardSecret).map((a) => a.suite.name)] as const)
        .filter(([, names]) => names.length > 0),
    );
    const noFsNames = [...new Set(Object.values(noFs).flat())];
    if (noFsNames.length > 0) {
      this.results.fail(
        'tls.cipher.no_forward_secrecy',
        this.finding(
          `${this.label} accepts suites without (EC)DHE: ${noFsNames.slice(0, 8).join(', ')}${noFsNames.length > 8 ? ', ...' : ''}.`,
          {
            suites_by_protocol: noFs,
          },
        ),
      );
    }
    const dhe = accepted.flatMap((v) => v.suites.filter((a) => a.suite.dhe).map((a) => ({ version: v.version, ...a })));
    const weak = dhe.filter((a) => a.dhBits !== undefined && a.dhBits < 2048);
    if (weak.length > 0) {
      const bits = Math.min(...weak.map((a) => a.dhBits!));
      this.results.fail(
        'tls.dh.weak_group',
        this.finding(`${this.label} uses a ${bits}-bit DH group with ${weak[0].suite.name}.`, {
          group_bits: bits,
          suites: [...new Set(weak.map((a) => a.suite.name))],
        }),
      );
    } else if (dhe.some((a) => a.dhBits === undefined)) {
      this.results.error('tls.dh.weak_group', 'a DHE suite was accepted but its key exchange was not read');
    }
    if (suiteErrors.length > 0) this.results.error(SUITE_RULES, `suite enumeration incomplete: ${suiteErrors.join('; ')}`);
    const total = new Set(accepted.flatMap((v) => v.suites.map((a) => a.suite.code))).size;
    for (const rule of SUITE_RULES)
      this.results.pass(rule, `${total} accepted suite(s) checked across ${accepted.map((v) => versionName(v.version)).join(', ')}.`);
  }

  private recordRenegotiation(best: VersionResult): void {
    const hello = this.bestHello;
    if (!hello) {
      this.results.error('tls.renegotiation.insecure', this.bestHelloError ?? `no ${versionName(best.version)} ServerHello was read`);
      return;
    }
    if (hello.extensions.has(Extension.renegotiationInfo)) {
      this.results.pass(
        'tls.renegotiation.insecure',
        `The ${versionName(hello.version)} ServerHello carries renegotiation_info (RFC 5746).`,
      );
    } else {
      this.results.fail(
        'tls.renegotiation.insecure',
        this.finding(
          `${this.label}'s ${versionName(hello.version)} ServerHello has no renegotiation_info extension: no RFC 5746 secure renegotiation.`,
          {
            protocol: versionName(hello.version),
          },
        ),
      );
    }
  }

  private async checkCertificate(best: VersionResult | undefined, anyAccepted: boolean): Promise<void> {
    if (!anyAccepted) {
      this.results.error(CERTIFICATE_RULES, 'no TLS handshake succeeded, so no certificate was received');
      return;
    }
    const chain = await this.attempt(async () => {
      if (best) {
        const outcome = await probeHello(
          this.connect,
          { hello: { version: best.version, suites: LEGACY_SUITES.map((s) => s.code), sni: this.sni }, full: true },
          this.timing,
        );
        if (outcome.kind === 'refused')
          throw new Error(`the ${versionName(best.version)} handshake for the certificate was refused (${outcome.reason})`);
        this.bestHello = outcome.hello;
        return outcome.certificates;
      }
      return this.chainOverNodeTls();
    });
    if (!chain.ok) {
      this.bestHelloError = chain.message;
      this.results.error(CERTIFICATE_RULES, `certificate: ${chain.message}`);
      return;
    }
    const evaluated = await this.attempt(async () =>
      evaluateChain({
        chain: chain.value,
        host: this.sni ?? this.options.host,
        extraRoots: this.options.extraRoots,
        now: this.options.now?.() ?? new Date(),
      }),
    );
    if (!evaluated.ok) {
      this.results.error(CERTIFICATE_RULES, `certificate: ${evaluated.message}`);
      return;
    }
    const failed = new Set<string>();
    for (const problem of evaluated.value.problems) {
      failed.add(problem.rule);
      this.results.fail(problem.rule, this.finding(problem.detail, problem.evidence));
    }
    const { leaf, trustedBy } = evaluated.value;
    for (const rule of CERTIFICATE_RULES) {
      if (failed.has(rule)) continue;
      this.results.pass(
        rule,
        `${leaf.subject} (issued by ${leaf.issuer}, valid to ${leaf.notAfter}${trustedBy ? `, trusted via ${trustedBy}` : ''}).`,
      );
    }
  }

  /** The chain of a TLS 1.3-only server, whose Certificate message is encrypted: through Node's TLS. */
  private async chainOverNodeTls(): Promise<Buffer[]> {
    const socket = await openNodeTls(this.endpoint, this.sni, this.limits);
    try {
      const chain: Buffer[] = [];
      let cert = socket.getPeerCertificate(true);
      while (cert && cert.raw && !chain.some((der) => der.equals(cert.raw))) {
        chain.push(cert.raw);
        cert = cert.issuerCertificate;
      }
      return chain;
    } finally {
      socket.destroy();
    }
  }

  private async checkCompression(best: VersionResult | undefined, anyAccepted: boolean): Promise<void> {
    if (!anyAccepted) return this.results.error('tls.compression.enabled', 'no TLS handshake succeeded');
    if (!best) return this.results.pass('tls.compression.enabled', 'Only TLS 1.3 is served, which has no compression.');
    const outcome = await this.attempt(() =>
      probeHello(
        this.connect,
        { hello: { version: best.version, suites: LEGACY_SUITES.map((s) => s.code), sni: this.sni, offerCompression: true } },
        this.timing,
      ),
    );
    if (!outcome.ok) return this.results.error('tls.compression.enabled', `compression probe: ${outcome.message}`);
    if (outcome.value.kind === 'refused')
      return this.results.error('tls.compression.enabled', `compression probe refused (${outcome.value.reason})`);
    if (outcome.value.hello.compression !== 0) {
      this.results.fail(
        'tls.compression.enabled',
        this.finding(`${this.label} selects TLS compression (method ${outcome.value.hello.compression}) when offered.`, {
          method: outcome.value.hello.compression,
        }),
      );
    } else {
      this.results.pass('tls.compression.enabled', 'DEFLATE offered and declined.');
    }
  }

  private async checkHeartbleed(best: VersionResult | undefined, anyAccepted: boolean): Promise<void> {
    if (!anyAccepted) return this.results.error('tls.heartbleed', 'no TLS handshake succeeded');
    if (!best) return this.results.pass('tls.heartbleed', 'Only TLS 1.3 is served; Heartbleed needs TLS 1.2 or older.');
    const outcome = await this.attempt(() =>
      probeHeartbleed(this.connect, { version: best.version, suites: LEGACY_SUITES.map((s) => s.code), sni: this.sni }, this.timing),
    );
    if (!outcome.ok) return this.results.error('tls.heartbleed', `heartbeat probe: ${outcome.message}`);
    const verdict = outcome.value;
    if (verdict.kind === 'vulnerable') {
      this.results.fail(
        'tls.heartbleed',
        this.finding(`${this.label} answered a heartbeat claiming ${verdict.claimed} bytes with ${verdict.returned} bytes of its memory.`, {
          claimed_bytes: verdict.claimed,
          returned_bytes: verdict.returned,
        }),
      );
    } else if (verdict.kind === 'refused') {
      this.results.error('tls.heartbleed', `heartbeat probe refused (${verdict.reason})`);
    } else {
      this.results.pass('tls.heartbleed', `Not vulnerable: ${verdict.reason}.`);
    }
  }

  private async checkHsts(anyAccepted: boolean): Promise<void> {
    const http = this.options.http ?? this.options.port === 443;
    if (!http) return this.results.skip('tls.hsts.missing', 'HTTP checks are off for this port (scope.http)');
    if (!anyAccepted) return this.results.error('tls.hsts.missing', 'no TLS handshake succeeded');
    const hostHeader = this.options.port === 443 ? this.label.replace(/:443$/, '') : this.label;
    const head = await this.attempt(async () => {
      const socket = await openNodeTls(this.endpoint, this.sni, this.limits);
      try {
        return await fetchResponseHead(socket, hostHeader, this.limits.readTimeoutMs, this.limits.signal);
      } finally {
        socket.destroy();
      }
    });
    if (!head.ok) return this.results.error('tls.hsts.missing', `HTTPS request: ${head.message}`);
    const verdict = await this.attempt(async () => judgeHsts(head.value));
    if (!verdict.ok) return this.results.error('tls.hsts.missing', `HTTPS response: ${verdict.message}`);
    const v = verdict.value;
    if (v.kind === 'ok') return this.results.pass('tls.hsts.missing', `Strict-Transport-Security: ${v.header}`);
    const detail =
      v.kind === 'short'
        ? `${this.label}'s Strict-Transport-Security max-age is ${v.maxAge}, under 180 days.`
        : v.invalid
          ? `${this.label} answers HTTPS (status ${v.status}) with a Strict-Transport-Security header browsers ignore: ${v.invalid}.`
          : `${this.label} answers HTTPS (status ${v.status}) without Strict-Transport-Security.`;
    this.results.fail(
      'tls.hsts.missing',
      this.finding(detail, {
        status: v.status,
        header: v.header ?? null,
        ...(v.kind === 'missing' && v.invalid ? { invalid: v.invalid } : {}),
      }),
    );
  }
}
