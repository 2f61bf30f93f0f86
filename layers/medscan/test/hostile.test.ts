/**
 * Bad input (DESIGN §22): peers that abort, lie about lengths, never release or never close a
 * frame, and a FHIR server that answers 10 MB or redirects to a forbidden address. Each ends as an
 * `error` check in bounded time and memory, never a pass. Also the HL7 side on a real MLLP server
 * from npm (node-hl7-server), which answers an empty frame with nothing: an error, not a pass.
 */
import { Server as Hl7Server } from 'node-hl7-server';
import { afterAll, describe, expect, it } from 'vitest';
import {
  abortingDicomPeer,
  acceptingDicomPeer,
  hostileHttp,
  hugeAcDicomPeer,
  nakMllpPeer,
  unclosedMllpPeer,
  type Peer,
} from './helpers/hostile.ts';
import { freePort } from './helpers/processes.ts';
import { runMedscan, statuses } from './helpers/run.ts';

const DICOM = [
  'med.dicom.any_called_ae',
  'med.dicom.any_calling_ae',
  'med.dicom.query_open',
  'med.dicom.store_open',
  'med.dicom.cleartext',
];
const FHIR = ['med.fhir.detected', 'med.fhir.no_security_declared', 'med.fhir.unauthenticated_read', 'med.fhir.smart_weak'];
const HL7 = ['med.hl7.mllp_exposed', 'med.hl7.cleartext'];
const peers: Peer[] = [];
afterAll(async () => Promise.all(peers.map((peer) => peer.close())));

async function peer(made: Promise<Peer>): Promise<Peer> {
  const started = await made;
  peers.push(started);
  return started;
}

function expectErrors(checks: Record<string, string>, ruleIds: readonly string[]): void {
  for (const ruleId of ruleIds) expect([ruleId, checks[ruleId]]).toEqual([ruleId, 'error']);
}

describe('DICOM peers that misbehave', () => {
  it('an A-ABORT answering the association request makes every DICOM check an error', async () => {
    const { port } = await peer(abortingDicomPeer());
    const { report } = await runMedscan('127.0.0.1', { dicom_ports: [port] });
    expectErrors(statuses(report), DICOM);
    expect(report.errors[0].message).toMatch(/aborted the association request/);
  });

  it('an A-ASSOCIATE-AC announcing a 4 GB PDU is refused at its header, without waiting for or buffering it', async () => {
    const { port } = await peer(hugeAcDicomPeer());
    const before = process.memoryUsage().rss;
    const { report, ms } = await runMedscan('127.0.0.1', { dicom_ports: [port] });
    expectErrors(statuses(report), DICOM);
    expect(report.errors[0].message).toMatch(/announced a 4294967295-byte PDU/);
    expect(ms).toBeLessThan(2500);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('a peer that accepts and then answers nothing (no C-ECHO response, no release) ends in errors at the read timeout', async () => {
    const { port } = await peer(acceptingDicomPeer('silent'));
    const { report, ms } = await runMedscan('127.0.0.1', { dicom_ports: [port], connect_timeout_ms: 500 });
    expectErrors(statuses(report), DICOM);
    expect(ms).toBeLessThan(4000);
  });

  it('a peer that never answers the A-RELEASE-RQ is aborted after the timeout; what it accepted stays a finding, never a pass', async () => {
    const { port, received } = await peer(acceptingDicomPeer('no_release'));
    const { report, ms } = await runMedscan('127.0.0.1', { dicom_ports: [port], connect_timeout_ms: 500 });
    expect(statuses(report)['med.dicom.any_called_ae']).toBe('fail');
    expect(report.findings.find((finding) => finding.rule_id === 'med.dicom.any_called_ae')!.evidence).toMatchObject({
      release: 'aborted',
    });
    expect(ms).toBeLessThan(4000);
    // What the peer received: A-ASSOCIATE-RQ, P-DATA (C-ECHO), A-RELEASE-RQ, A-ABORT; nothing else.
    expect(received.map((chunk) => chunk.readUInt8(0))).toEqual([1, 4, 5, 7]);
  });
});

describe('FHIR servers that misbehave', () => {
  it('a 10 MB CapabilityStatement is cut at the 2 MiB cap: the FHIR checks are errors', async () => {
    const { port } = await peer(hostileHttp({ kind: 'huge' }));
    const before = process.memoryUsage().rss;
    const { report } = await runMedscan(`http://127.0.0.1:${port}/fhir`);
    expectErrors(statuses(report), FHIR);
    expect(report.errors.find((error) => error.check === 'med.fhir.detected')!.message).toMatch(/cap/);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('a redirect to a forbidden address (cloud metadata) is refused, not followed: errors', async () => {
    const { port } = await peer(hostileHttp({ kind: 'redirect', location: 'http://169.254.169.254/latest/meta-data/' }));
    const { report } = await runMedscan(`http://127.0.0.1:${port}/fhir`);
    expectErrors(statuses(report), [...FHIR, 'med.orthanc.rest_unauthenticated', 'med.dicomweb.qido_unauthenticated']);
    expect(report.errors[0].message).toMatch(/redirect to 169\.254\.169\.254 was refused/);
  });
});

describe('HL7 MLLP', () => {
  it('a frame that never closes (64 KiB and more) is an error', async () => {
    const { port } = await peer(unclosedMllpPeer('flood'));
    const { report } = await runMedscan('127.0.0.1', { hl7_ports: [port] });
    expectErrors(statuses(report), HL7);
    expect(report.errors[0].message).toMatch(/did not close within 64 KiB/);
  });

  it('a frame that stalls unclosed is an error at the read timeout', async () => {
    const { port } = await peer(unclosedMllpPeer('stall'));
    const { report, ms } = await runMedscan('127.0.0.1', { hl7_ports: [port], connect_timeout_ms: 500 });
    expectErrors(statuses(report), HL7);
    expect(ms).toBeLessThan(3000);
  });

  it('a framed NAK answering the empty frame fails mllp_exposed and cleartext, keeping only the code', async () => {
    const { port, received } = await peer(nakMllpPeer());
    const { report, stdout } = await runMedscan('127.0.0.1', { hl7_ports: [port] });
    expect(statuses(report)).toMatchObject({ 'med.hl7.mllp_exposed': 'fail', 'med.hl7.cleartext': 'fail' });
    expect(report.findings[0].evidence).toEqual({ port, ack_code: 'AR' });
    expect(stdout).not.toContain('HOSP');
    // The empty frame, and nothing else, is all it was sent.
    expect(Buffer.concat(received)).toEqual(Buffer.from([0x0b, 0x1c, 0x0d]));
  });

  it('node-hl7-server, which answers an empty frame with nothing, is an error, never a pass', async () => {
    const port = await freePort();
    const messages: string[] = [];
    const server = new Hl7Server({ bindAddress: '127.0.0.1' });
    const inbound = server.createInbound({ port }, (req) => {
      messages.push(String(req.getMessage().get('MSH.9')));
    });
    inbound.on('data.error', () => {});
    try {
      const { report } = await runMedscan('127.0.0.1', { hl7_ports: [port], connect_timeout_ms: 500 });
      expectErrors(statuses(report), HL7);
      expect(messages).toEqual([]); // no message (ADT, ORM or any) ever reached its handler
    } finally {
      await inbound.close();
    }
  });

  it('a closed HL7 port passes', async () => {
    const port = await freePort();
    const { report } = await runMedscan('127.0.0.1', { hl7_ports: [port] });
    expect(statuses(report)).toMatchObject({ 'med.hl7.mllp_exposed': 'pass', 'med.hl7.cleartext': 'pass' });
  });
});
