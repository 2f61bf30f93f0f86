/**
 * HL7 v2 over MLLP (DESIGN §22): an empty MLLP frame (VT FS CR) and nothing else, never an ADT or
 * ORM message. A framed answer with an MSH and an MSA is an ACK or NAK: an interface engine listens.
 * Only the acknowledgement code is kept; the answer (with its facility names) is dropped.
 */
import { ConnectFailed, connectTcp } from '../../../../lib/connect.ts';
import { portRanges, type Coverage, type ReportBuilder } from '../../../../lib/report.ts';
import type { VettedAddress } from '../../../../lib/target-policy.ts';
import { ConnectionClosed, ReadLimit, ReadTimeout, SocketReader } from '../../../engine-kit/src/socket-reader.ts';
import { HL7_RULE_IDS, MED_RULES } from '../catalogue.ts';

const VT = 0x0b;
const END = Buffer.from([0x1c, 0x0d]);
export const EMPTY_FRAME = Buffer.from([VT, 0x1c, 0x0d]);
const MAX_ANSWER_BYTES = 64 * 1024;

export type MllpAnswer =
  { kind: 'ack'; code: string } | { kind: 'other'; what: string } | { kind: 'closed_port' } | { kind: 'failed'; why: string };

export async function probeMllp(address: VettedAddress, port: number, timeoutMs: number, signal: AbortSignal): Promise<MllpAnswer> {
  let socket;
  try {
    socket = await connectTcp({ address, port, timeoutMs, signal });
  } catch (error) {
    if (error instanceof ConnectFailed && error.code === 'refused') return { kind: 'closed_port' };
    if (error instanceof ConnectFailed) return { kind: 'failed', why: `port ${port}: ${error.message}` };
    throw error;
  }
  const reader = new SocketReader(socket, MAX_ANSWER_BYTES * 2);
  try {
    socket.write(EMPTY_FRAME);
    const first = await reader.exactly(1, timeoutMs, signal);
    if (first[0] !== VT) return { kind: 'other', what: 'an answer that is not an MLLP frame' };
    const frame = await reader.until(END, timeoutMs, MAX_ANSWER_BYTES, signal);
    const text = frame.subarray(0, frame.length - END.length).toString('latin1');
    const segments = text.split(/\r\n?|\n/);
    const msa = segments.find((segment) => segment.startsWith('MSA'));
    if (!segments[0]?.startsWith('MSH') || !msa) return { kind: 'other', what: 'an MLLP frame that is not an HL7 acknowledgement' };
    const separator = segments[0][3] ?? '|';
    const code = msa.split(separator)[1] ?? '';
    return { kind: 'ack', code: /^[AC][AER]$/.test(code) ? code : 'unreadable' };
  } catch (error) {
    if (error instanceof ConnectionClosed) return { kind: 'other', what: 'the connection closed without a framed answer' };
    if (error instanceof ReadTimeout || error instanceof ReadLimit)
      return {
        kind: 'failed',
        why: `port ${port}: ${error instanceof ReadLimit ? 'the frame did not close within 64 KiB' : error.message}`,
      };
    throw error;
  } finally {
    socket.destroy();
  }
}

export function recordHl7(report: ReportBuilder, host: string, answers: readonly { port: number; answer: MllpAnswer }[]): void {
  const bracket = host.includes(':') ? `[${host}]` : host;
  const coverage: Coverage = {
    kind: 'network',
    scanned: [{ protocol: 'tcp', hosts: [host], ports: portRanges(answers.map((entry) => entry.port)) }],
  };
  if (answers.length === 0) {
    report.skip(HL7_RULE_IDS, 'no hl7_ports in the scope');
    return;
  }
  for (const { port, answer } of answers) {
    const place = { fingerprint_key: `${bracket}:${port}`, locations: [`tcp:${bracket}:${port}`] };
    if (answer.kind === 'failed') report.error(HL7_RULE_IDS, answer.why);
    else if (answer.kind === 'ack') {
      report.fail(MED_RULES.mllpExposed, {
        ...place,
        detail: `Port ${port} answered an empty MLLP frame with an HL7 acknowledgement (${answer.code}).`,
        evidence: { port, ack_code: answer.code },
      });
      report.fail(MED_RULES.hl7Cleartext, { ...place, detail: `Port ${port} speaks MLLP on plain TCP.`, evidence: { port } });
    } else {
      const what = answer.kind === 'closed_port' ? 'closed' : answer.what;
      for (const ruleId of HL7_RULE_IDS) report.pass(ruleId, `port ${port}: ${what}`, coverage);
    }
  }
}
