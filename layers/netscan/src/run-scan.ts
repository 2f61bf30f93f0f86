/**
 * One netscan scan: resolve and vet the target's addresses, TCP connect scan the scope's ports,
 * identify the service on every open port, then the mode's extra step (vapt: unauthenticated
 * access; vm: known-vulnerable versions), recording every rule's check as it goes.
 */
import { mapBounded } from '../../../lib/concurrency.ts';
import { ConnectFailed, connectTcp } from '../../../lib/connect.ts';
import { portRanges } from '../../../lib/report.ts';
import type { ScanContext } from '../../engine-kit/src/cli.ts';
import { resolveTarget, vetAddress, type Lookup, type VettedAddress } from '../../../lib/target-policy.ts';
import { NET_RULES, NET_TLS_RULE_IDS } from './catalogue.ts';
import { identifyService } from './probe/identify.ts';
import { DATABASE_SERVICES, REMOTE_ADMIN_SERVICES, type ServiceIdentity } from './probe/service.ts';
import { makeSocketDialer } from './probe/socket-dialer.ts';
import { parsePortSpec } from './ports/port-spec.ts';
import { scanTcp, type ConnectOutcome } from './scan/tcp-scan.ts';
import type { NetscanScope } from './scope.ts';
import { parseTargetSpec } from './targets.ts';
import { probeUnauthenticatedAccess } from './vapt/unauthenticated.ts';
import { lookUpVersions, type VersionLookup } from './vm/version-lookup.ts';
import { readTuning, type Tuning } from './tuning.ts';
import { checkTlsPorts } from './tls-ports.ts';

export interface NetscanDependencies {
  lookup?: Lookup;
  fetch?: typeof fetch;
}

/** `address:port`, IPv6 in brackets. */
export function endpoint(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** One connection attempt of the port scan: open (also when reset after the handshake), closed (refused) or filtered (timeout, unreachable). */
async function attemptConnect(address: VettedAddress, port: number, timeoutMs: number, signal: AbortSignal): Promise<ConnectOutcome> {
  try {
    const socket = await connectTcp({ address, port, timeoutMs, signal });
    socket.destroy();
    return { state: 'open' };
  } catch (error) {
    if (!(error instanceof ConnectFailed)) return { error: error instanceof Error ? error.message : String(error) };
    switch (error.code) {
      case 'refused':
        return { state: 'closed' };
      case 'reset':
        // A reset can only follow a completed handshake (a closed port refuses the SYN): open, as nmap -sT says.
        return { state: 'open' };
      case 'timeout':
      case 'unreachable':
        return { state: 'filtered' };
      default:
        return { error: error.message };
    }
  }
}

interface PortResult {
  address: string;
  vetted: VettedAddress;
  port: number;
  identity?: ServiceIdentity;
  /** Identification could not complete (the port stopped answering, the deadline). */
  failure?: string;
}

const SERVICE_RULES = [NET_RULES.exposedDatabase, NET_RULES.exposedRemoteAdmin, NET_RULES.cleartext] as const;

function describe(identity: ServiceIdentity): string {
  const name = identity.tls && identity.service !== 'tls' ? `${identity.service} over TLS` : identity.service;
  const product = [identity.product, identity.version].filter(Boolean).join(' ');
  return product ? `${name} (${product})` : name;
}

function recordService(context: ScanContext<NetscanScope>, result: PortResult & { identity: ServiceIdentity }): void {
  const { report } = context;
  const { address, port, identity } = result;
  const where = endpoint(address, port);
  if (identity.unfinished) {
    report.error(
      [...SERVICE_RULES, ...(context.scope.mode === 'vapt' ? [NET_RULES.unauthenticated] : [])],
      `${where}: ${identity.unfinished}`,
    );
  }
  const evidence = {
    address,
    port,
    service: identity.service,
    tls: identity.tls,
    ...(identity.product ? { product: identity.product } : {}),
    ...(identity.version ? { version: identity.version } : {}),
    ...(identity.banner ? { banner: identity.banner } : {}),
    ...(identity.offersTls !== undefined ? { offers_tls: identity.offersTls } : {}),
    ...(identity.details ? { details: identity.details } : {}),
  };
  report.fail(NET_RULES.portOpen, {
    detail: `${where} is open: ${describe(identity)}`,
    evidence,
    fingerprint_key: where,
    subject: where,
    locations: [`tcp:${where}`],
  });
  if (DATABASE_SERVICES.includes(identity.service)) {
    report.fail(NET_RULES.exposedDatabase, {
      detail: `${describe(identity)} answers on ${where}`,
      evidence,
      fingerprint_key: where,
      subject: where,
      locations: [`tcp:${where}`],
    });
  }
  if (REMOTE_ADMIN_SERVICES.includes(identity.service)) {
    report.fail(NET_RULES.exposedRemoteAdmin, {
      detail: `${describe(identity)} answers on ${where}`,
      evidence,
      fingerprint_key: where,
      subject: where,
      locations: [`tcp:${where}`],
    });
  }
  const mail = identity.service === 'smtp' || identity.service === 'pop3' || identity.service === 'imap';
  if (!identity.tls && (identity.service === 'telnet' || ((identity.service === 'ftp' || mail) && identity.offersTls === false))) {
    const why =
      identity.service === 'telnet'
        ? 'telnet has no encryption'
        : identity.service === 'ftp'
          ? 'FTP without AUTH TLS'
          : `${identity.service.toUpperCase()} without ${identity.service === 'pop3' ? 'STLS' : 'STARTTLS'}`;
    report.fail(NET_RULES.cleartext, {
      detail: `${where}: ${why}`,
      evidence,
      fingerprint_key: where,
      subject: where,
      locations: [`tcp:${where}`],
    });
  }
}

/** The scan a netscan CLI runs (src/cli-definition.ts wires it to the kit's frame). */
export function makeNetscanScan(dependencies: NetscanDependencies = {}) {
  return async function scan(context: ScanContext<NetscanScope>): Promise<void> {
    const { report, scope, deadline, progress } = context;
    const tuning: Tuning = readTuning(context.config);
    const spec = parseTargetSpec(context.target);
    const addresses =
      spec.kind === 'host'
        ? await resolveTarget(spec.host, context.policy, dependencies.lookup)
        : spec.addresses.map((address) => vetAddress(address, context.policy));
    const host = spec.kind === 'host' ? spec.host : undefined;
    const ports = parsePortSpec(scope.ports);
    /** The rules each open port's service probe decides. */
    const perPortRules: string[] = [...SERVICE_RULES, ...(scope.mode === 'vapt' ? [NET_RULES.unauthenticated] : [])];
    const attempts = addresses.length * ports.length;
    // What every check examined: these addresses (and the name they were resolved from) on these
    // TCP ports. A port outside them is never resolved by this scan (DESIGN §15).
    report.covered({
      kind: 'network',
      scanned: [
        {
          protocol: 'tcp',
          hosts: spec.kind === 'addresses' && spec.cidr ? [spec.cidr] : [...(host ? [host] : []), ...addresses.map((a) => a.address)],
          ports: portRanges(ports),
        },
      ],
    });
    progress('port scan started', {
      addresses: addresses.length,
      ports: ports.length,
      attempts,
      rate: scope.rate,
      max_in_flight: tuning.maxInFlight,
    });

    // Leave time to identify what the port scan finds, should it run into the deadline.
    const reserve = Math.min(60_000, deadline.remainingMs() * 0.25);
    const portPhase = deadline.child(Math.max(1, deadline.remainingMs() - reserve));
    const tcp = await scanTcp({
      addresses,
      ports,
      rate: scope.rate,
      maxInFlight: tuning.maxInFlight,
      connectTimeoutMs: scope.connect_timeout_ms,
      signal: portPhase.signal,
      attempt: attemptConnect,
    });
    progress('port scan finished', { ...tcp.counts, peak_in_flight: tcp.peakInFlight });

    const results = await mapBounded(
      tcp.open,
      tuning.probeConcurrency,
      async ({ address, port }): Promise<PortResult> => {
        const dialer = makeSocketDialer({
          address,
          port,
          servername: host,
          connectTimeoutMs: scope.connect_timeout_ms,
          readTimeoutMs: tuning.readTimeoutMs,
          maxBytes: tuning.maxBytes,
          signal: deadline.signal,
        });
        let identity: ServiceIdentity;
        try {
          identity = await identifyService(dialer, { host: host ?? address.address, port, greetingMs: tuning.greetingMs });
        } catch (error) {
          const failure = `${endpoint(address.address, port)}: the service probe could not complete: ${error instanceof Error ? error.message : String(error)}`;
          report.fail(NET_RULES.portOpen, {
            detail: `${endpoint(address.address, port)} is open (service not identified)`,
            evidence: { address: address.address, port, service: 'unknown', probe_error: failure },
            fingerprint_key: endpoint(address.address, port),
            subject: endpoint(address.address, port),
            locations: [`tcp:${endpoint(address.address, port)}`],
          });
          report.error([...perPortRules, ...NET_TLS_RULE_IDS], failure);
          return { address: address.address, vetted: address, port, failure };
        }
        const result = { address: address.address, vetted: address, port, identity };
        recordService(context, result);
        if (scope.mode === 'vapt') await checkAccess(context, result, dialer, host ?? address.address);
        return result;
      },
      { signal: deadline.signal },
    );
    const identified = results.filter((r): r is PortResult & { identity: ServiceIdentity } => r?.identity !== undefined);

    let versions: VersionLookup | undefined;
    if (scope.mode === 'vm') {
      versions = await lookUpVersions(identified, {
        osvUrl: context.env.NETSCAN_OSV_URL,
        nvdUrl: context.env.NETSCAN_NVD_URL,
        nvdKey: context.env.NETSCAN_NVD_KEY,
        upstreamEcosystem: context.env.NETSCAN_OSV_UPSTREAM_ECOSYSTEM,
        signal: deadline.signal,
        fetch: dependencies.fetch,
      });
      for (const finding of versions.findings) report.fail(NET_RULES.vulnerableVersion, finding);
    }

    // Checks: pass only over a complete port scan; a scan cut short proves nothing about the rest.
    const summary = `${attempts} connection attempts (${addresses.length} address${addresses.length === 1 ? '' : 'es'} × ${ports.length} ports): ${tcp.counts.open} open, ${tcp.counts.closed} closed, ${tcp.counts.filtered} filtered`;
    const portRules = [NET_RULES.portOpen, ...SERVICE_RULES, ...(scope.mode === 'vapt' ? [NET_RULES.unauthenticated] : [])];
    // A TLS port among the ports not tried would have gone unchecked too.
    const incompleteRules = [...portRules, ...NET_TLS_RULE_IDS];
    if (tcp.counts.not_attempted > 0) {
      report.error(
        incompleteRules,
        `the port scan reached its time budget with ${tcp.counts.not_attempted} of ${attempts} connection attempts not made; ports found open are reported`,
      );
    }
    if (tcp.errors.length > 0) {
      const first = tcp.errors[0];
      report.error(
        incompleteRules,
        `${tcp.errors.length} connection attempts failed, e.g. ${endpoint(first.address.address, first.port)}: ${first.message}`,
      );
    }
    const unprobed = tcp.open.length - results.filter((r) => r !== undefined).length;
    if (unprobed > 0) report.error([...perPortRules, ...NET_TLS_RULE_IDS], `the deadline passed before ${unprobed} open ports were probed`);
    for (const rule of portRules) report.pass(rule, summary);
    if (scope.mode === 'vm') report.skip(NET_RULES.unauthenticated, 'vapt scans only');
    else report.skip(NET_RULES.vulnerableVersion, 'vm scans only');
    if (versions) versions.record(report);

    const tlsChecked = await checkTlsPorts(
      identified.map((r) => ({ address: r.vetted, port: r.port, identity: r.identity })),
      { host, report, deadline, progress },
    );
    if (tlsChecked.length === 0) report.skip(NET_TLS_RULE_IDS, 'no TLS port found (implicit TLS, or STARTTLS on SMTP/IMAP/POP3)');
  };
}

async function checkAccess(
  context: ScanContext<NetscanScope>,
  result: PortResult & { identity: ServiceIdentity },
  dialer: ReturnType<typeof makeSocketDialer>,
  host: string,
): Promise<void> {
  const where = endpoint(result.address, result.port);
  try {
    const outcome = await probeUnauthenticatedAccess(result.identity, dialer, host);
    if (outcome === null) return;
    if ('error' in outcome) context.report.error(NET_RULES.unauthenticated, `${where}: ${outcome.error}`);
    else if (outcome.open) {
      context.report.fail(NET_RULES.unauthenticated, {
        detail: `${where}: ${outcome.detail}`,
        evidence: {
          address: result.address,
          port: result.port,
          service: result.identity.service,
          request: outcome.request,
          ...outcome.evidence,
        },
        fingerprint_key: where,
        subject: where,
        locations: [`tcp:${where}`],
      });
    } else context.report.pass(NET_RULES.unauthenticated, `${where}: ${outcome.detail}`);
  } catch (error) {
    context.report.error(
      NET_RULES.unauthenticated,
      `${where}: the access probe could not complete: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
