import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressProblem } from '../../lib/address-policy.ts';
import { ConnectFailed, connectTcp } from '../../lib/connect.ts';
import { Deadline, DeadlineExceeded } from '../../layers/engine-kit/src/deadline.ts';
import { ConnectionClosed, ReadLimit, ReadTimeout, SocketReader } from '../../layers/engine-kit/src/socket-reader.ts';
import { policyFromEnv, resolveTarget, TargetRefused, vetAddress } from '../../lib/target-policy.ts';

const LOOPBACK = { allowPrivate: false, allowLoopback: true };
const STRICT = { allowPrivate: false, allowLoopback: false };

describe('target policy', () => {
  it('refuses link-local and metadata under any policy, loopback and private unless allowed', () => {
    const open = { allowPrivate: true, allowLoopback: true };
    expect(addressProblem('169.254.169.254', open)).toBe('link-local');
    expect(addressProblem('fd00:ec2::254', open)).toBe('cloud metadata');
    expect(addressProblem('127.0.0.1', STRICT)).toBe('loopback');
    expect(addressProblem('::ffff:127.0.0.1', STRICT)).toBe('loopback (embedded 127.0.0.1)');
    expect(addressProblem('127.0.0.1', LOOPBACK)).toBeNull();
    expect(addressProblem('10.1.2.3', LOOPBACK)).toBe('private');
    expect(addressProblem('10.1.2.3', { allowPrivate: true, allowLoopback: false })).toBeNull();
    expect(addressProblem('127.0.0.1', { allowPrivate: true, allowLoopback: false })).toBe('loopback');
    expect(addressProblem('93.184.216.34', STRICT)).toBeNull();
  });

  it('reads the switches from <PREFIX>_ALLOW_*', () => {
    expect(policyFromEnv('TLSSCAN', { TLSSCAN_ALLOW_LOOPBACK: '1' })).toEqual(LOOPBACK);
    expect(policyFromEnv('TLSSCAN', { TLSSCAN_ALLOW_PRIVATE: 'true', MAILSCAN_ALLOW_PRIVATE: '1' })).toEqual({
      allowPrivate: true,
      allowLoopback: false,
    });
  });

  it('resolves a name once and refuses the target when any address is refused', async () => {
    const lookup = async (host: string) =>
      host === 'mixed.test'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '10.0.0.5', family: 4 },
          ]
        : host === 'public.test'
          ? [
              { address: '93.184.216.34', family: 4 },
              { address: '93.184.216.34', family: 4 },
            ]
          : [];
    expect(await resolveTarget('public.test', STRICT, lookup)).toEqual([{ address: '93.184.216.34', family: 4, vetted: true }]);
    await expect(resolveTarget('mixed.test', STRICT, lookup)).rejects.toThrow('resolves to 10.0.0.5, which is refused: private');
    await expect(resolveTarget('empty.test', STRICT, lookup)).rejects.toThrow(TargetRefused);
    await expect(resolveTarget('localhost', STRICT, lookup)).rejects.toThrow('loopback targets are not allowed');
    expect(await resolveTarget('localhost', LOOPBACK, lookup)).toEqual([{ address: '127.0.0.1', family: 4, vetted: true }]);
    await expect(resolveTarget('metadata.google.internal', { allowPrivate: true, allowLoopback: true }, lookup)).rejects.toThrow(
      'metadata',
    );
    expect(() => vetAddress('169.254.169.254', { allowPrivate: true, allowLoopback: true })).toThrow('link-local');
    // A name resolving to this host reaches the machine's own loopback: refused under every setting.
    const thisHost = async () => [{ address: '0.0.0.0', family: 4 }];
    await expect(resolveTarget('innocent.test', { allowPrivate: true, allowLoopback: true }, thisHost)).rejects.toThrow('unspecified');
    expect(() => vetAddress('::', { allowPrivate: true, allowLoopback: true })).toThrow('unspecified');
  });
});

describe('connectTcp and SocketReader', () => {
  let server: Server;
  let port: number;
  const behaviours: ((socket: Socket) => void)[] = [];
  beforeAll(async () => {
    server = createServer((socket) => behaviours.shift()?.(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const address = vetAddress('127.0.0.1', LOOPBACK);

  it('tells a closed port (refused) apart and refuses an address that was not vetted', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await connectTcp({ address, port: closedPort, timeoutMs: 2000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectFailed);
    expect((failure as ConnectFailed).code).toBe('refused');
    await expect(connectTcp({ address: { address: '127.0.0.1', family: 4 } as never, port, timeoutMs: 100 })).rejects.toThrow('not vetted');
  });

  it('reads exact lengths and lines, keeps the rest for the next read', async () => {
    behaviours.push((socket) => socket.end('220 hello\r\nABCDEFG'));
    const socket = await connectTcp({ address, port, timeoutMs: 2000 });
    const reader = new SocketReader(socket);
    expect((await reader.until('\r\n', 2000)).toString()).toBe('220 hello\r\n');
    expect((await reader.exactly(3, 2000)).toString()).toBe('ABC');
    expect((await reader.rest(2000)).toString()).toBe('DEFG');
    await expect(reader.exactly(1, 2000)).rejects.toBeInstanceOf(ConnectionClosed);
    socket.destroy();
  });

  it('times out a silent peer and cuts off a flooding one at the byte cap', async () => {
    behaviours.push(() => {});
    const silent = await connectTcp({ address, port, timeoutMs: 2000 });
    await expect(new SocketReader(silent).some(100)).rejects.toBeInstanceOf(ReadTimeout);
    silent.destroy();
    behaviours.push((socket) => {
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      const pump = (): void => {
        while (!socket.destroyed && socket.write(chunk));
        if (!socket.destroyed) socket.once('drain', pump);
      };
      socket.on('error', () => {});
      pump();
    });
    const flood = await connectTcp({ address, port, timeoutMs: 2000 });
    const reader = new SocketReader(flood, 256 * 1024);
    await expect(reader.until('\n', 5000, 10 * 1024 * 1024)).rejects.toBeInstanceOf(ReadLimit);
    expect(flood.destroyed).toBe(true);
  });
});

describe('Deadline', () => {
  it('bounds a step and gives children at most what is left', async () => {
    const deadline = new Deadline(50);
    expect(deadline.child(10_000).remainingMs()).toBeLessThanOrEqual(50);
    await expect(deadline.within(new Promise(() => {}), 'probe')).rejects.toBeInstanceOf(DeadlineExceeded);
    expect(deadline.expired()).toBe(true);
    expect(deadline.child(1000).signal.aborted).toBe(true);
    await expect(new Deadline(1000).within(Promise.resolve(7), 'x')).resolves.toBe(7);
  });
});
