/**
 * vdiscan as the kit's CLI frame runs it (DESIGN §11, §21): the target is resolved once under the
 * target policy; each port is identified on one connection (an RDP Connection Request asking for
 * standard RDP only: an RDP server answers with a Connection Confirm, a VNC server has already sent
 * its RFB version, anything else is tried as a desktop gateway over HTTPS or HTTP), and the answer
 * decides which rules apply; the others are `skipped` for that port.
 */
import type { EngineDefinition } from '../../engine-kit/src/cli.ts';
import { ConnectFailed } from '../../../lib/connect.ts';
import { portRanges, type ReportBuilder } from '../../../lib/report.ts';
import { resolveTarget } from '../../../lib/target-policy.ts';
import {
  RdpProtocolError,
  RdpProtocol,
  connectionRequest,
  parseConnectionConfirm,
  tpktFramer,
} from '../../engine-kit/src/rdp-negotiation.ts';
import { mapBounded } from '../../../lib/concurrency.ts';
import { GATEWAY_RULE_IDS, RDP_RULE_IDS, RDP_TLS_RULE_IDS, VNC_RULE_IDS, catalogue } from './catalogue.ts';
import { probeGateways, recordGatewayVerdicts } from './gateway.ts';
import { endpointLabel, openLink, type Link, type PortContext } from './link.ts';
import { ReadTimeout } from '../../engine-kit/src/socket-reader.ts';
import { Pacer } from './pacer.ts';
import { checkRdpTls, continueFirst, negotiateRest, recordRdpVerdicts, type RdpFacts } from './rdp.ts';
import { DEFAULT_PORTS, VdiScope, portsOf } from './scope.ts';
import { formatVdiTarget, parseVdiTarget } from './target.ts';
import { readSecurityTypes, recordVncVerdicts } from './vnc.ts';

export const VDISCAN_VERSION = '0.1.0';

/** DESIGN §21: connection starts to one RDP port at least 200 ms apart. */
export const RDP_CONNECTION_INTERVAL_MS = 200;
/** Ports identified at once. */
const PORTS_AT_ONCE = 4;
const DEFAULT_READ_TIMEOUT_MS = 8000;
/** How long a port may take to speak first (VNC greets at once) before the RDP request is sent. */
const GREETING_WAIT_MS = 300;

type Identity =
  | { kind: 'rdp'; first: Awaited<ReturnType<typeof continueFirst>> }
  /** The VNC server's greeting, and the connection it came on (kept open: the exchange goes on there). */
  | { kind: 'vnc'; link?: Link; greeting?: Buffer }
  | { kind: 'closed'; why: string }
  | { kind: 'other'; answer: string }
  | { kind: 'rdp_broken'; why: string };

const printable = (bytes: Buffer): string =>
  bytes
    .subarray(0, 32)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '.');

/** Cuts the first answer: a whole TPKT for RDP, a 12-byte greeting for VNC, else whatever came. */
function firstAnswerFramer(buffer: Buffer): number | null {
  if (buffer.length === 0) return null;
  if (buffer[0] === 3) return tpktFramer(buffer);
  if ('RFB '.startsWith(buffer.subarray(0, 4).toString('latin1'))) return buffer.length >= 12 ? 12 : null;
  return buffer.length;
}

async function identify(context: PortContext): Promise<Identity> {
  let link;
  try {
    link = await openLink(context);
  } catch (error) {
    if (error instanceof ConnectFailed)
      return { kind: 'closed', why: error.code === 'refused' ? 'the port is closed' : `no connection: ${error.message}` };
    throw error;
  }
  let keep = false;
  try {
    // A server that speaks first (VNC's "RFB 003.008") is heard before anything is sent, so a VNC
    // server never sees RDP bytes (TigerVNC counts a bad handshake against the client's address
    // and blacklists it after five). 3389 is RDP's own port: no wait there.
    if (context.port !== 3389) {
      const greeting = await link.reader
        .read(firstAnswerFramer, Math.min(GREETING_WAIT_MS, context.readTimeoutMs), context.signal)
        .catch((error: unknown) => (error instanceof ReadTimeout ? null : Promise.reject(error as Error)));
      if (greeting !== null) {
        if (greeting.subarray(0, 4).toString('latin1') === 'RFB ') {
          keep = true;
          return { kind: 'vnc', link, greeting };
        }
        return { kind: 'other', answer: `speaks first: ${JSON.stringify(printable(greeting))}` };
      }
    }
    link.socket.write(connectionRequest(RdpProtocol.rdp));
    let answer: Buffer;
    try {
      answer = await link.reader.read(firstAnswerFramer, context.readTimeoutMs, context.signal);
    } catch (error) {
      if (error instanceof RdpProtocolError) return { kind: 'rdp_broken', why: error.message };
      const partial = link.reader.buffered;
      // A TPKT header that never completes is an RDP server that stalled, not another service.
      if (partial.length > 0 && partial[0] === 3)
        return { kind: 'rdp_broken', why: `a TPKT that never completed (${(error as Error).message})` };
      if (partial.length > 0 && 'RFB '.startsWith(partial.subarray(0, 4).toString('latin1'))) {
        return { kind: 'vnc' };
      }
      return { kind: 'other', answer: `no answer to an RDP Connection Request (${(error as Error).message})` };
    }
    if (answer.subarray(0, 4).toString('latin1') === 'RFB ') return { kind: 'vnc' };
    if (answer[0] !== 3) return { kind: 'other', answer: `answered an RDP Connection Request with ${JSON.stringify(printable(answer))}` };
    try {
      const negotiation = parseConnectionConfirm(answer);
      return { kind: 'rdp', first: await continueFirst(link, context, negotiation) };
    } catch (error) {
      return { kind: 'rdp_broken', why: (error as Error).message };
    }
  } finally {
    if (!keep) link.socket.destroy();
  }
}

export interface VdiDependencies {
  /** Milliseconds between connection starts to one port (tests keep DESIGN's 200). */
  intervalMs?: number;
  readTimeoutMs?: number;
}

export function vdiscanDefinition(dependencies: VdiDependencies = {}): EngineDefinition<VdiScope> {
  return {
    name: 'vdiscan',
    version: VDISCAN_VERSION,
    envPrefix: 'VDISCAN',
    targetHelp: 'an IP address, a host name, or host:port (that one port; [IPv6]:port)',
    catalogue: () => catalogue,
    scopeSchema: () => VdiScope,
    parseTarget: (raw) => {
      const parsed = parseVdiTarget(raw);
      return parsed.ok ? { ok: true, target: formatVdiTarget(parsed.target) } : parsed;
    },
    scan: async ({ target, scope, deadline, policy, report, progress }) => {
      const parsed = parseVdiTarget(target);
      if (!parsed.ok) throw new Error(parsed.message);
      const { host } = parsed.target;
      const explicit = parsed.target.port;
      const ports = explicit !== undefined ? [explicit] : scope.ports === undefined ? [...DEFAULT_PORTS] : portsOf(scope.ports);
      const [address] = await resolveTarget(host, policy);
      progress('vdi.target', { host, address: address.address, ports });
      report.covered({
        kind: 'network',
        scanned: [{ protocol: 'tcp', hosts: [...new Set([host, address.address])], ports: portRanges(ports) }],
      });
      const readTimeoutMs = dependencies.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
      await mapBounded(
        ports,
        PORTS_AT_ONCE,
        async (port) => {
          const context: PortContext = {
            host,
            address,
            port,
            pacer: new Pacer(dependencies.intervalMs ?? RDP_CONNECTION_INTERVAL_MS, Date.now, deadline.signal),
            readTimeoutMs: Math.max(1, Math.min(readTimeoutMs, deadline.remainingMs())),
            signal: deadline.signal,
          };
          await scanPort(context, report, {
            rdpTls: scope.rdp_tls ?? true,
            deadline,
            progress,
            rdpPort: port === 3389,
          });
        },
        { signal: deadline.signal },
      );
    },
    defaultTimeoutSeconds: 300,
  };
}

/** What each negotiation asked for and what the server answered (progress; the tests compare it with nmap and xfreerdp). */
function negotiationsOf(facts: RdpFacts): Array<Record<string, unknown>> {
  return [{ ok: true as const, value: facts.rdpOnly }, facts.tlsOnly, facts.tlsOrCredSsp].map((entry) =>
    entry.ok
      ? {
          requested: entry.value.requested,
          ...(entry.value.answer.kind === 'selected'
            ? { selected: entry.value.answer.selected }
            : entry.value.answer.kind === 'failure'
              ? { failure: entry.value.answer.code }
              : { legacy: true }),
          ...(entry.value.security?.ok ? { encryption: entry.value.security.value } : {}),
        }
      : { error: entry.message },
  );
}

async function scanPort(
  context: PortContext,
  report: ReportBuilder,
  options: {
    rdpTls: boolean;
    deadline: Parameters<typeof checkRdpTls>[3]['deadline'];
    progress: Parameters<typeof checkRdpTls>[3]['progress'];
    rdpPort: boolean;
  },
): Promise<void> {
  const label = endpointLabel(context);
  const rdpRules = [...RDP_RULE_IDS, ...RDP_TLS_RULE_IDS];
  let identity: Identity;
  try {
    identity = await identify(context);
  } catch (error) {
    const why = `${label}: ${(error as Error).message}`;
    report.error([...rdpRules, ...VNC_RULE_IDS, ...GATEWAY_RULE_IDS], why);
    return;
  }
  options.progress('vdi.port', { endpoint: label, kind: identity.kind });
  switch (identity.kind) {
    case 'closed':
      report.skip([...rdpRules, ...VNC_RULE_IDS, ...GATEWAY_RULE_IDS], `${label}: ${identity.why}`);
      return;
    case 'rdp_broken':
      report.error(rdpRules, `${label} answers like RDP but not as RDP does: ${identity.why}`);
      report.skip([...VNC_RULE_IDS, ...GATEWAY_RULE_IDS], `${label}: not a VNC service or a gateway`);
      return;
    case 'rdp': {
      report.skip([...VNC_RULE_IDS, ...GATEWAY_RULE_IDS], `${label}: an RDP service, not VNC or a gateway`);
      const facts = await negotiateRest(context, identity.first);
      options.progress('vdi.rdp.negotiations', { endpoint: label, answers: negotiationsOf(facts) });
      recordRdpVerdicts(report, context, facts);
      await checkRdpTls(report, context, facts, { enabled: options.rdpTls, deadline: options.deadline, progress: options.progress });
      return;
    }
    case 'vnc': {
      report.skip([...rdpRules, ...GATEWAY_RULE_IDS], `${label}: a VNC service, not RDP or a gateway`);
      try {
        const facts = await readSecurityTypes(
          context,
          identity.link && identity.greeting ? { link: identity.link, greeting: identity.greeting } : undefined,
        );
        options.progress('vdi.vnc.types', {
          endpoint: label,
          version: facts.version,
          types: facts.types,
          vencrypt_subtypes: facts.subtypes,
        });
        recordVncVerdicts(report, context, facts);
      } catch (error) {
        report.error(VNC_RULE_IDS, `${label}: the VNC security types could not be read: ${(error as Error).message}`);
      }
      return;
    }
    case 'other': {
      if (options.rdpPort) report.error(rdpRules, `${label} is the RDP port but ${identity.answer}`);
      else report.skip(rdpRules, `${label}: not an RDP service (${identity.answer})`);
      report.skip(VNC_RULE_IDS, `${label}: not a VNC service`);
      try {
        const facts = await probeGateways(context);
        if (facts) recordGatewayVerdicts(report, context, facts);
        else report.skip(GATEWAY_RULE_IDS, `${label}: speaks neither HTTPS nor HTTP`);
      } catch (error) {
        report.error(GATEWAY_RULE_IDS, `${label}: a gateway page could not be read: ${(error as Error).message}`);
      }
    }
  }
}
