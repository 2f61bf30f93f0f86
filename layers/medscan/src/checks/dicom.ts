/**
 * The DICOM checks of DESIGN §22 on each port: one association to a random called AE from a random
 * calling AE, then one per `called_ae` of the scope when that is refused; on an accepted association
 * a C-ECHO, one C-FIND for a random patient id, a look at which storage contexts were accepted, and
 * a release. Never a C-STORE, C-MOVE or C-GET, never a guessed AE title.
 */
import { connect as tlsConnect } from 'node:tls';
import { ConnectFailed } from '../../../../lib/connect.ts';
import type { VettedAddress } from '../../../../lib/target-policy.ts';
import { ReadLimit, ReadTimeout, ConnectionClosed } from '../../../engine-kit/src/socket-reader.ts';
import { requestAssociation, type Association } from '../dicom/association.ts';
import { PATIENT_ROOT_FIND, STORAGE_SOPS, STUDY_ROOT_FIND, VERIFICATION_SOP } from '../dicom/dimse.ts';
import { EXPLICIT_VR_LE, IMPLICIT_VR_LE, PduError, PeerAborted, type PresentationContextRq } from '../dicom/pdu.ts';
import { randomAeTitle, randomPatientId } from '../random.ts';

const TRANSFER = [IMPLICIT_VR_LE, EXPLICIT_VR_LE];
const CONTEXT = { echo: 1, studyFind: 3, patientFind: 5, storage: [7, 9, 11] } as const;
export const PROPOSED_CONTEXTS: readonly PresentationContextRq[] = [
  { id: CONTEXT.echo, abstractSyntax: VERIFICATION_SOP, transferSyntaxes: [IMPLICIT_VR_LE] },
  { id: CONTEXT.studyFind, abstractSyntax: STUDY_ROOT_FIND, transferSyntaxes: [IMPLICIT_VR_LE] },
  { id: CONTEXT.patientFind, abstractSyntax: PATIENT_ROOT_FIND, transferSyntaxes: [IMPLICIT_VR_LE] },
  ...STORAGE_SOPS.map((sop, index) => ({ id: CONTEXT.storage[index], abstractSyntax: sop, transferSyntaxes: TRANSFER })),
];

/** The C-FIND's "status" when the peer aborted the association instead of answering it. */
export const FIND_ABORTED = -1;

/** What one accepted association showed. */
export interface AcceptedProbe {
  calledAe: 'random' | 'configured';
  echoStatus?: number;
  /** The C-FIND's final status and its number of matches (0 expected); undefined when no query context was accepted. */
  find?: { status: number; matches: number; model: 'study_root' | 'patient_root' };
  /** Storage SOP classes whose context was accepted. */
  storageAccepted: string[];
  ending: string;
}

/** The port's answer to one association request. */
export type AssociationProbe =
  | { kind: 'accepted'; probe: AcceptedProbe }
  | { kind: 'rejected'; result: number; source: number; reason: number }
  | { kind: 'closed_port' }
  | { kind: 'not_dicom'; why: string }
  | { kind: 'failed'; why: string };

export interface DicomPortResult {
  port: number;
  random: AssociationProbe;
  /** One per called_ae of the scope, tried only when the random called AE was refused; keyed by position, never by title in logs. */
  configured: { index: number; probe: AssociationProbe }[];
  /** The port completed a TLS handshake (tried only where plain DICOM did not answer). */
  tls: boolean;
}

export interface DicomProbeOptions {
  address: VettedAddress;
  timeoutMs: number;
  signal: AbortSignal;
}

async function useAssociation(association: Association, calledAe: AcceptedProbe['calledAe']): Promise<AcceptedProbe> {
  const probe: AcceptedProbe = { calledAe, storageAccepted: [], ending: 'closed' };
  try {
    const answer = association.answer;
    if (answer.kind === 'accepted') {
      probe.storageAccepted = answer.contexts
        .filter((context) => context.result === 0 && (CONTEXT.storage as readonly number[]).includes(context.id))
        .map((context) => PROPOSED_CONTEXTS.find((proposed) => proposed.id === context.id)!.abstractSyntax);
    }
    const echo = association.acceptedContext([CONTEXT.echo]);
    if (echo !== undefined) probe.echoStatus = await association.echo(echo);
    const study = association.acceptedContext([CONTEXT.studyFind]);
    const patient = association.acceptedContext([CONTEXT.patientFind]);
    const model = study !== undefined ? 'study_root' : 'patient_root';
    const contextId = study ?? patient;
    if (contextId !== undefined) {
      try {
        const sopClass = model === 'study_root' ? STUDY_ROOT_FIND : PATIENT_ROOT_FIND;
        probe.find = {
          ...(await association.find(contextId, sopClass, randomPatientId(), model === 'study_root' ? 'STUDY' : 'PATIENT')),
          model,
        };
      } catch (error) {
        // An abort (or a hang-up, as Orthanc does) answering the C-FIND refuses the query; the probe did not fail.
        if (!(error instanceof PeerAborted || error instanceof ConnectionClosed)) throw error;
        probe.find = { status: FIND_ABORTED, matches: 0, model };
      }
    }
  } finally {
    probe.ending = await association.close();
  }
  return probe;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function probeAssociation(
  port: number,
  calledAe: string,
  calledKind: AcceptedProbe['calledAe'],
  options: DicomProbeOptions,
): Promise<AssociationProbe> {
  let association: Association;
  try {
    association = await requestAssociation({ ...options, port, calledAe, callingAe: randomAeTitle(), contexts: PROPOSED_CONTEXTS });
  } catch (error) {
    if (error instanceof ConnectFailed && error.code === 'refused') return { kind: 'closed_port' };
    if (error instanceof PduError && /not a DICOM PDU/.test(error.message)) return { kind: 'not_dicom', why: error.message };
    if (
      error instanceof ConnectFailed ||
      error instanceof PduError ||
      error instanceof ReadTimeout ||
      error instanceof ReadLimit ||
      error instanceof ConnectionClosed
    )
      return { kind: 'failed', why: `port ${port}: ${describe(error)}` };
    throw error;
  }
  const answer = association.answer;
  if (answer.kind === 'rejected') {
    await association.close();
    return { kind: 'rejected', result: answer.result, source: answer.source, reason: answer.reason };
  }
  if (answer.kind === 'aborted') {
    await association.close();
    return {
      kind: 'failed',
      why: `port ${port}: the peer aborted the association request (source ${answer.source}, reason ${answer.reason})`,
    };
  }
  try {
    return { kind: 'accepted', probe: await useAssociation(association, calledKind) };
  } catch (error) {
    if (error instanceof PduError || error instanceof ReadTimeout || error instanceof ReadLimit || error instanceof ConnectionClosed)
      return { kind: 'failed', why: `port ${port}: the association was accepted, then ${describe(error)}` };
    throw error;
  }
}

/** Whether the port completes a TLS handshake (DICOM-TLS offered); certificates are not judged. */
function tlsHandshake(port: number, options: DicomProbeOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: options.address.address, port, rejectUnauthorized: false });
    const timer = setTimeout(() => done(false), options.timeoutMs);
    const onAbort = (): void => done(false);
    options.signal.addEventListener('abort', onAbort, { once: true });
    function done(result: boolean): void {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(result);
    }
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function probeDicomPort(port: number, calledAes: readonly string[], options: DicomProbeOptions): Promise<DicomPortResult> {
  const random = await probeAssociation(port, randomAeTitle(), 'random', options);
  const configured: DicomPortResult['configured'] = [];
  if (random.kind === 'rejected') {
    for (const [index, title] of calledAes.entries())
      configured.push({ index, probe: await probeAssociation(port, title, 'configured', options) });
  }
  const tls = random.kind === 'not_dicom' || random.kind === 'failed' ? await tlsHandshake(port, options) : false;
  return { port, random, configured, tls };
}
