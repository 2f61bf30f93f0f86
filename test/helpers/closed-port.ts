import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback TCP port nothing listens on: bound once to learn it (port 0), then closed. */
export async function closedTcpPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
