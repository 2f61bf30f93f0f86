/**
 * RDP's security verdicts (DESIGN §21), read from what the server selects: three negotiations on
 * three connections (standard RDP only; TLS only; TLS or CredSSP), the MCS Connect Response on the
 * connection where standard security was selected, and the NTLM CHALLENGE when CredSSP was. Then
 * tlsscan's checks on the TLS layer through its `rdp` preamble. Every connection start to the port
 * waits for the port's pacer (200 ms apart). Nothing goes past the MCS Connect Response or the
 * NTLM CHALLENGE: no Erect Domain, no NTLM AUTHENTICATE, no credential.
 */
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { Progress } from '../../engine-kit/src/progress.ts';
import {
  HYBRID_REQUIRED_BY_SERVER,
  RdpProtocol,
  connectionRequest,
  describeAnswer,
  parseConnectionConfirm,
  protocolNames,
  tpktFramer,
  type NegotiationAnswer,
} from '../../engine-kit/src/rdp-negotiation.ts';
import { SocketReader } from '../../engine-kit/src/socket-reader.ts';
import type { Deadline } from '../../engine-kit/src/deadline.ts';
import type { FindingInput, ReportBuilder } from '../../../lib/report.ts';
import { scanTlsEndpoint } from '../../engine-kit/src/tls/index.ts';
import { RDP_TLS_RULE_IDS, VDI_RULES, rdpTlsRuleId } from './catalogue.ts';
import { MAX_CONNECTION_BYTES, endpointLabel, openLink, type Link, type PortContext } from './link.ts';
import {
  ENCRYPTION_LEVELS,
  ENCRYPTION_METHODS,
  derFramer,
  mcsConnectInitial,
  parseMcsConnectResponse,
  parseNtlmChallenge,
  tsRequestWithNegotiate,
  type NtlmChallenge,
  type ServerSecurity,
} from './rdp-wire.ts';

type Attempt<T> = { ok: true; value: T } | { ok: false; message: string };

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function attempt<T>(work: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, message: message(error) };
  }
}

/** What one negotiation learnt: the answer, and what was read after it on the same connection. */
export interface Negotiation {
  requested: number;
  answer: NegotiationAnswer;
  /** The MCS Connect Response's security data, read when this connection selected standard security. */
  security?: Attempt<ServerSecurity>;
  /** The NTLM CHALLENGE, read when this connection selected CredSSP. */
  ntlm?: Attempt<NtlmChallenge>;
}

export const selectsStandard = (answer: NegotiationAnswer): boolean =>
  answer.kind === 'legacy' || (answer.kind === 'selected' && answer.selected === RdpProtocol.rdp);
const selectsCredSsp = (answer: NegotiationAnswer): boolean =>
  answer.kind === 'selected' && (answer.selected & (RdpProtocol.hybrid | RdpProtocol.hybridEx)) !== 0;
const selectsTls = (answer: NegotiationAnswer): boolean =>
  answer.kind === 'selected' && (answer.selected & (RdpProtocol.ssl | RdpProtocol.hybrid | RdpProtocol.hybridEx)) !== 0;

/** Sends the Connection Request for `requested` on `link` and reads the Connection Confirm. */
export async function negotiate(link: Link, requested: number, context: PortContext): Promise<NegotiationAnswer> {
  link.socket.write(connectionRequest(requested));
  return parseConnectionConfirm(await link.reader.read(tpktFramer, context.readTimeoutMs, context.signal));
}

/** On a connection that selected standard security: the MCS Connect Initial and its response, nothing after. */
async function readMcsSecurity(link: Link, context: PortContext, selected: number): Promise<ServerSecurity> {
  link.socket.write(mcsConnectInitial(selected));
  return parseMcsConnectResponse(await link.reader.read(tpktFramer, context.readTimeoutMs, context.signal));
}

/** On a connection that selected CredSSP: TLS, the NTLM NEGOTIATE, and the CHALLENGE; then it closes. */
async function readNtlmChallenge(link: Link, context: PortContext): Promise<NtlmChallenge> {
  const { socket } = link;
  socket.removeAllListeners('data');
  socket.removeAllListeners('end');
  socket.removeAllListeners('close');
  socket.removeAllListeners('error');
  socket.on('error', () => {});
  const secure = await new Promise<TLSSocket>((resolve, reject) => {
    const tls = tlsConnect({ socket, rejectUnauthorized: false, minVersion: 'TLSv1', ciphers: 'ALL:@SECLEVEL=0' });
    const timer = setTimeout(() => fail(new Error(`no TLS handshake within ${context.readTimeoutMs} ms`)), context.readTimeoutMs);
    const onAbort = (): void => fail(new Error('the scan was stopped'));
    context.signal.addEventListener('abort', onAbort, { once: true });
    function fail(error: Error): void {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
      tls.destroy();
      reject(error);
    }
    tls.once('error', (error: Error) => fail(new Error(`the TLS handshake failed: ${error.message}`)));
    tls.once('secureConnect', () => {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
      resolve(tls);
    });
  });
  try {
    const reader = new SocketReader(secure, MAX_CONNECTION_BYTES);
    secure.write(tsRequestWithNegotiate());
    return parseNtlmChallenge(await reader.read(derFramer(MAX_CONNECTION_BYTES), context.readTimeoutMs, context.signal));
  } finally {
    secure.destroy();
  }
}

/** One more negotiation on its own connection, reading what follows when it selects standard security or CredSSP. */
async function negotiateOnce(context: PortContext, requested: number, follow: { mcs: boolean; ntlm: boolean }): Promise<Negotiation> {
  const link = await openLink(context);
  try {
    const answer = await negotiate(link, requested, context);
    return await follow_(link, context, requested, answer, follow);
  } finally {
    link.socket.destroy();
  }
}

async function follow_(
  link: Link,
  context: PortContext,
  requested: number,
  answer: NegotiationAnswer,
  follow: { mcs: boolean; ntlm: boolean },
): Promise<Negotiation> {
  const negotiation: Negotiation = { requested, answer };
  if (follow.mcs && selectsStandard(answer)) negotiation.security = await attempt(() => readMcsSecurity(link, context, 0));
  else if (follow.ntlm && selectsCredSsp(answer)) negotiation.ntlm = await attempt(() => readNtlmChallenge(link, context));
  return negotiation;
}

/** The first negotiation (standard RDP only) was read by the port's identification on `link`; this goes on from there. */
export async function continueFirst(link: Link, context: PortContext, answer: NegotiationAnswer): Promise<Negotiation> {
  return follow_(link, context, RdpProtocol.rdp, answer, { mcs: true, ntlm: false });
}

export interface RdpFacts {
  rdpOnly: Negotiation;
  tlsOnly: Attempt<Negotiation>;
  tlsOrCredSsp: Attempt<Negotiation>;
}

export async function negotiateRest(context: PortContext, rdpOnly: Negotiation): Promise<RdpFacts> {
  const tlsOnly = await attempt(() => negotiateOnce(context, RdpProtocol.ssl, { mcs: !rdpOnly.security, ntlm: false }));
  const tlsOrCredSsp = await attempt(() => negotiateOnce(context, RdpProtocol.ssl | RdpProtocol.hybrid, { mcs: false, ntlm: true }));
  return { rdpOnly, tlsOnly, tlsOrCredSsp };
}

const requestName = (requested: number): string => (requested === 0 ? 'standard RDP only' : protocolNames(requested).join(' or '));

function finding(context: PortContext, detail: string, evidence: Record<string, unknown>): FindingInput {
  const label = endpointLabel(context);
  return { detail, evidence: { endpoint: label, ...evidence }, fingerprint_key: label, subject: label, locations: [`tcp:${label}`] };
}

function answersOf(facts: RdpFacts): Record<string, string> {
  const out: Record<string, string> = { [requestName(facts.rdpOnly.requested)]: describeAnswer(facts.rdpOnly.answer) };
  for (const entry of [facts.tlsOnly, facts.tlsOrCredSsp]) {
    if (entry.ok) out[requestName(entry.value.requested)] = describeAnswer(entry.value.answer);
  }
  return out;
}

/** The RDP verdicts of one port, recorded in `report` (pure on the facts: the tests feed it recorded answers too). */
export function recordRdpVerdicts(report: ReportBuilder, context: PortContext, facts: RdpFacts): void {
  const label = endpointLabel(context);
  const answers = answersOf(facts);
  const withoutCredSsp = [facts.rdpOnly, facts.tlsOnly.ok ? facts.tlsOnly.value : undefined];

  // NLA: a request without CredSSP must be refused with HYBRID_REQUIRED_BY_SERVER (or another refusal).
  if (!facts.tlsOnly.ok && !withoutCredSsp.some((n) => n && n.answer.kind !== 'failure')) {
    report.error(VDI_RULES.nlaNotRequired, `${label}: the TLS-only negotiation failed: ${facts.tlsOnly.message}`);
  } else {
    const accepted = withoutCredSsp.filter((n): n is Negotiation => n !== undefined && n.answer.kind !== 'failure');
    if (accepted.length > 0) {
      report.fail(
        VDI_RULES.nlaNotRequired,
        finding(
          context,
          `${label} accepts a connection without CredSSP (${accepted.map((n) => `asked for ${requestName(n.requested)}: ${describeAnswer(n.answer)}`).join('; ')}), so NLA is not required.`,
          { answers },
        ),
      );
    } else {
      const hybrid = withoutCredSsp.every((n) => n?.answer.kind === 'failure' && n.answer.code === HYBRID_REQUIRED_BY_SERVER);
      report.pass(
        VDI_RULES.nlaNotRequired,
        `${label}: requests without CredSSP are refused (${withoutCredSsp.map((n) => describeAnswer(n!.answer)).join('; ')})${hybrid ? ': NLA is required' : ''}.`,
      );
    }
  }

  // Standard RDP security selected for a request that offered standard RDP (and TLS).
  const standard = withoutCredSsp.filter((n): n is Negotiation => n !== undefined && selectsStandard(n.answer));
  if (standard.length > 0) {
    report.fail(
      VDI_RULES.standardSecurity,
      finding(
        context,
        `${label} selects standard RDP security (${standard.map((n) => `asked for ${requestName(n.requested)}: ${describeAnswer(n.answer)}`).join('; ')}).`,
        { answers },
      ),
    );
  } else if (!facts.tlsOnly.ok) {
    report.error(VDI_RULES.standardSecurity, `${label}: the TLS-only negotiation failed: ${facts.tlsOnly.message}`);
  } else {
    report.pass(
      VDI_RULES.standardSecurity,
      `${label}: standard RDP security is not selected (${withoutCredSsp.map((n) => describeAnswer(n!.answer)).join('; ')}).`,
    );
  }

  // Encryption under standard security, from the MCS Connect Response.
  const security = standard.find((n) => n.security)?.security;
  if (standard.length === 0) {
    report.skip(VDI_RULES.weakEncryption, `${label}: standard RDP security is not selected, so its encryption is not used`);
  } else if (!security) {
    report.error(VDI_RULES.weakEncryption, `${label}: the MCS Connect Initial was not sent`);
  } else if (!security.ok) {
    report.error(VDI_RULES.weakEncryption, `${label}: the MCS Connect Response could not be read: ${security.message}`);
  } else {
    const { method, level } = security.value;
    const methodName = ENCRYPTION_METHODS[method] ?? `method 0x${method.toString(16)}`;
    const levelName = ENCRYPTION_LEVELS[level] ?? `level ${level}`;
    const weak = method === 0 || method === 0x1 || method === 0x8 || level === 0 || level === 1 || level === 2;
    if (weak) {
      report.fail(
        VDI_RULES.weakEncryption,
        finding(context, `${label} uses ${methodName} at encryption level ${levelName} under standard RDP security.`, {
          encryption_method: methodName,
          encryption_level: levelName,
        }),
      );
    } else {
      report.pass(VDI_RULES.weakEncryption, `${label}: standard RDP security uses ${methodName} at level ${levelName}.`);
    }
  }

  // The NTLM challenge of CredSSP.
  if (!facts.tlsOrCredSsp.ok) {
    report.error(VDI_RULES.ntlmDisclosure, `${label}: the TLS-or-CredSSP negotiation failed: ${facts.tlsOrCredSsp.message}`);
  } else if (!facts.tlsOrCredSsp.value.ntlm) {
    report.skip(
      VDI_RULES.ntlmDisclosure,
      `${label}: CredSSP is not selected (${describeAnswer(facts.tlsOrCredSsp.value.answer)}), so no NTLM challenge is sent`,
    );
  } else if (!facts.tlsOrCredSsp.value.ntlm.ok) {
    report.error(VDI_RULES.ntlmDisclosure, `${label}: the NTLM challenge could not be read: ${facts.tlsOrCredSsp.value.ntlm.message}`);
  } else {
    const challenge = facts.tlsOrCredSsp.value.ntlm.value;
    const names = [challenge.netbios_computer, challenge.netbios_domain, challenge.dns_computer, challenge.dns_domain].filter(Boolean);
    if (names.length > 0 || challenge.os_version) {
      report.fail(
        VDI_RULES.ntlmDisclosure,
        finding(
          context,
          `${label}'s NTLM challenge names ${[challenge.netbios_computer, challenge.dns_domain ?? challenge.netbios_domain].filter(Boolean).join(' in ') || 'the host'}${challenge.os_version ? `, OS version ${challenge.os_version}` : ''}.`,
          { ...challenge },
        ),
      );
    } else {
      report.pass(VDI_RULES.ntlmDisclosure, `${label}: the NTLM challenge names no host, domain or OS version.`);
    }
  }
}

/** Whether the RDP port speaks TLS (so tlsscan has something to check). */
export function offersTls(facts: RdpFacts): boolean {
  return [facts.tlsOnly, facts.tlsOrCredSsp].some((entry) => entry.ok && selectsTls(entry.value.answer));
}

/** tlsscan's checks on the port's TLS layer, recorded as `vdi.rdp.tls.*`. */
export async function checkRdpTls(
  report: ReportBuilder,
  context: PortContext,
  facts: RdpFacts,
  options: { enabled: boolean; deadline: Deadline; progress: Progress },
): Promise<void> {
  const label = endpointLabel(context);
  if (!options.enabled) return void report.skip(RDP_TLS_RULE_IDS, 'rdp_tls is off in the scope');
  if (!offersTls(facts)) {
    if (!facts.tlsOnly.ok && !facts.tlsOrCredSsp.ok) return void report.error(RDP_TLS_RULE_IDS, `${label}: the TLS negotiations failed`);
    return void report.skip(RDP_TLS_RULE_IDS, `${label} selects no TLS on RDP, so there is no TLS layer to check`);
  }
  const result = await scanTlsEndpoint({
    host: context.host,
    address: context.address,
    port: context.port,
    starttls: 'rdp',
    http: false,
    deadline: options.deadline,
    progress: options.progress,
    beforeConnect: () => context.pacer.next(),
    readTimeoutMs: context.readTimeoutMs,
  });
  for (const entry of result.rules) {
    const id = rdpTlsRuleId(entry.rule_id);
    for (const f of entry.findings) report.fail(id, f);
    if (entry.errors.length > 0) report.error(id, entry.errors.join('; '));
    if (entry.status === 'pass') report.pass(id, entry.detail);
    if (entry.status === 'skipped') report.skip(id, entry.detail);
  }
}
