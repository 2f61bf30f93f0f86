/**
 * A safe Heartbleed probe (CVE-2014-0160), done the way testssl.sh does it: a ClientHello with the
 * heartbeat extension; when the server agrees to heartbeats, once its handshake messages are in,
 * a heartbeat request that claims 16 KiB of payload and carries none, then a well-formed one. A
 * patched server drops the first and echoes the second; a vulnerable one answers the first with
 * its memory. Only the length of that answer is kept: its bytes are read (bounded) and discarded.
 */
import { type ClientHelloOptions, malformedHeartbeat } from './client-hello.ts';
import { Extension } from './client-hello.ts';
import { type Connector, type ProbeTiming, probeHello, readRecord } from './probe.ts';
import { ContentType, describeAlert, encodeRecord } from './records.ts';

const CLAIMED = 0x4000;
const ECHO_PAYLOAD = Buffer.from('tlsscan-heartbeat');

export type HeartbleedVerdict =
  | { kind: 'vulnerable'; claimed: number; returned: number }
  | { kind: 'not_vulnerable'; reason: string }
  | { kind: 'refused'; reason: string };

/** A well-formed heartbeat request: type 1, length, payload, 16 bytes of padding. */
function wellFormedHeartbeat(version: number): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(ECHO_PAYLOAD.length, 0);
  return encodeRecord(ContentType.heartbeat, version, Buffer.concat([Buffer.from([1]), length, ECHO_PAYLOAD, Buffer.alloc(16)]));
}

export async function probeHeartbleed(
  connect: Connector,
  hello: Omit<ClientHelloOptions, 'heartbeat'>,
  timing: ProbeTiming,
): Promise<HeartbleedVerdict> {
  const outcome = await probeHello(connect, { hello: { ...hello, heartbeat: true }, full: true, keepOpen: true }, timing);
  if (outcome.kind === 'refused') return outcome;
  const link = outcome.link;
  try {
    if (!outcome.hello.extensions.has(Extension.heartbeat)) {
      return { kind: 'not_vulnerable', reason: 'the server does not accept the heartbeat extension' };
    }
    if (!link) throw new Error('the heartbeat probe lost its connection');
    link.write(Buffer.concat([malformedHeartbeat(outcome.hello.version, CLAIMED), wellFormedHeartbeat(outcome.hello.version)]));
    for (;;) {
      const record = await readRecord(link.reader, timing).catch((error: unknown) => error as Error);
      if (record instanceof Error) {
        return { kind: 'not_vulnerable', reason: `no heartbeat answer (${record.message})` };
      }
      if (record.type === ContentType.alert)
        return { kind: 'not_vulnerable', reason: `the server answered with a ${describeAlert(record.fragment)}` };
      if (record.type !== ContentType.heartbeat) continue;
      const returned = record.fragment.length >= 3 ? record.fragment.readUInt16BE(1) : 0;
      if (record.fragment.length > ECHO_PAYLOAD.length + 3 + 16 || returned > ECHO_PAYLOAD.length) {
        // The bytes stay here: only how many came back goes into the report.
        return { kind: 'vulnerable', claimed: CLAIMED, returned: Math.min(returned, record.fragment.length - 3) };
      }
      return { kind: 'not_vulnerable', reason: 'the server ignored the malformed heartbeat and echoed the well-formed one' };
    }
  } finally {
    link?.close();
  }
}
