/**
 * One DICOM association at a time (DESIGN §22): request, at most a C-ECHO and one C-FIND, then a
 * proper A-RELEASE (an A-ABORT only when the peer does not release in time). Every read is bounded
 * in bytes (the PDU framer) and time.
 */
import type { Socket } from 'node:net';
import { connectTcp } from '../../../../lib/connect.ts';
import type { VettedAddress } from '../../../../lib/target-policy.ts';
import { SocketReader } from '../../../engine-kit/src/socket-reader.ts';
import { cEchoRq, cFindRq, findIdentifier, isPending, parseCommand, RESPONSE } from './dimse.ts';
import {
  abortPdu,
  associateRq,
  MAX_RECEIVE_PDU,
  parseAssociationAnswer,
  parsePData,
  pduFramer,
  PduError,
  PDU,
  PeerAborted,
  pDataTf,
  releaseRq,
  type AssociationAnswer,
  type PresentationContextRq,
} from './pdu.ts';

export interface AssociationOptions {
  address: VettedAddress;
  port: number;
  calledAe: string;
  callingAe: string;
  contexts: readonly PresentationContextRq[];
  timeoutMs: number;
  signal: AbortSignal;
}

export interface FindOutcome {
  /** The final status of the C-FIND (0 success). */
  status: number;
  /** How many pending (matching) responses came; their identifiers are dropped unread. */
  matches: number;
}

/** How the association ended: `released` (A-RELEASE-RP), `aborted` (we had to abort), `closed` by the peer. */
export type Ending = 'released' | 'aborted' | 'closed';

/** An association the peer answered; `close()` must be called once. */
export class Association {
  private messageId = 0;
  constructor(
    readonly answer: AssociationAnswer,
    private readonly socket: Socket,
    private readonly reader: SocketReader,
    private readonly options: AssociationOptions,
  ) {}

  acceptedContext(abstractSyntaxIds: readonly number[]): number | undefined {
    if (this.answer.kind !== 'accepted') return undefined;
    return this.answer.contexts.find((context) => context.result === 0 && abstractSyntaxIds.includes(context.id))?.id;
  }

  private async send(contextId: number, command: Buffer, dataSet?: Buffer): Promise<void> {
    this.socket.write(pDataTf(contextId, true, command));
    if (dataSet) this.socket.write(pDataTf(contextId, false, dataSet));
  }

  /** The next whole DIMSE message (command set, then its data set if it has one); data sets are dropped. */
  private async response(): Promise<{ command: ReturnType<typeof parseCommand> }> {
    const commandParts: Buffer[] = [];
    let command: ReturnType<typeof parseCommand> | undefined;
    let commandBytes = 0;
    for (;;) {
      const message = await this.reader.read(pduFramer(MAX_RECEIVE_PDU), this.options.timeoutMs, this.options.signal);
      const type = message.readUInt8(0);
      if (type === PDU.abort) throw new PeerAborted('the peer aborted the association');
      if (type !== PDU.pData) throw new PduError(`the peer sent PDU type ${type} instead of a DIMSE response`);
      for (const pdv of parsePData(message)) {
        if (pdv.isCommand) {
          commandBytes += pdv.data.length;
          if (commandBytes > 16 * 1024) throw new PduError('a DIMSE command set over 16 KiB');
          commandParts.push(pdv.data);
          if (pdv.isLast) command = parseCommand(Buffer.concat(commandParts));
        } else if (pdv.isLast && command) {
          // A data set (a match's identifier) ends the message; its content is never read or kept.
          return { command };
        }
      }
      if (command && !command.hasDataSet) return { command };
    }
  }

  async echo(contextId: number): Promise<number> {
    this.messageId += 1;
    await this.send(contextId, cEchoRq(this.messageId));
    const { command } = await this.response();
    if (command.commandField !== RESPONSE.cEcho)
      throw new PduError(`the peer answered C-ECHO with command 0x${command.commandField.toString(16)}`);
    return command.status;
  }

  async find(contextId: number, sopClass: string, patientId: string, level: 'STUDY' | 'PATIENT', maxMatches = 100): Promise<FindOutcome> {
    this.messageId += 1;
    await this.send(contextId, cFindRq(this.messageId, sopClass), findIdentifier(patientId, level));
    let matches = 0;
    for (;;) {
      const { command } = await this.response();
      if (command.commandField !== RESPONSE.cFind)
        throw new PduError(`the peer answered C-FIND with command 0x${command.commandField.toString(16)}`);
      if (!isPending(command.status)) return { status: command.status, matches };
      matches += 1;
      if (matches > maxMatches) throw new PduError(`more than ${maxMatches} matches for a random patient id`);
    }
  }

  /** A-RELEASE; an A-ABORT when the peer does not answer the release within the timeout. */
  async close(): Promise<Ending> {
    if (this.answer.kind !== 'accepted') {
      this.socket.destroy();
      return 'closed';
    }
    try {
      this.socket.write(releaseRq());
      const message = await this.reader.read(pduFramer(MAX_RECEIVE_PDU), this.options.timeoutMs, this.options.signal);
      if (message.readUInt8(0) === PDU.releaseRp) return 'released';
      this.socket.write(abortPdu());
      return 'aborted';
    } catch {
      if (!this.socket.destroyed) this.socket.write(abortPdu());
      return 'aborted';
    } finally {
      this.socket.end();
      this.socket.destroy();
    }
  }
}

/** Connects and requests the association; rejects with ConnectFailed, PduError or a read error. */
export async function requestAssociation(options: AssociationOptions): Promise<Association> {
  const socket = await connectTcp({ address: options.address, port: options.port, timeoutMs: options.timeoutMs, signal: options.signal });
  const reader = new SocketReader(socket, 4 * 1024 * 1024);
  try {
    socket.write(associateRq(options.calledAe, options.callingAe, options.contexts));
    const message = await reader.read(pduFramer(MAX_RECEIVE_PDU), options.timeoutMs, options.signal);
    return new Association(parseAssociationAnswer(message), socket, reader, options);
  } catch (error) {
    socket.destroy();
    throw error;
  }
}
