/**
 * One port of the scan: how vdiscan opens a connection to it (the vetted address, the port's pacer,
 * a byte-capped SocketReader) and the label findings carry.
 */
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { connectTcp } from '../../../lib/connect.ts';
import type { VettedAddress } from '../../../lib/target-policy.ts';
import { SocketReader } from '../../engine-kit/src/socket-reader.ts';
import type { Pacer } from './pacer.ts';

/** Bytes one connection may receive before the scan stops reading (an MCS response with a certificate fits). */
export const MAX_CONNECTION_BYTES = 64 * 1024;

export interface PortContext {
  /** The target's host as given (names the endpoint in findings). */
  host: string;
  address: VettedAddress;
  port: number;
  pacer: Pacer;
  readTimeoutMs: number;
  signal: AbortSignal;
}

export interface Link {
  socket: Socket;
  reader: SocketReader;
}

export function endpointLabel(context: Pick<PortContext, 'host' | 'port'>): string {
  return `${isIP(context.host) === 6 ? `[${context.host}]` : context.host}:${context.port}`;
}

export async function openLink(context: PortContext): Promise<Link> {
  await context.pacer.next();
  const socket = await connectTcp({
    address: context.address,
    port: context.port,
    timeoutMs: context.readTimeoutMs,
    signal: context.signal,
  });
  return { socket, reader: new SocketReader(socket, MAX_CONNECTION_BYTES) };
}
