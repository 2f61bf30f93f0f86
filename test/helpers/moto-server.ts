import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface MotoServer {
  /** `http://127.0.0.1:<port>`: the endpoint for every AWS client of the test. */
  endpoint: string;
  /** Static test credentials and region for the SDK clients. */
  clientConfig: { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * moto_server (on the machine's PATH) on a loopback port, for the AWS adapters' tests (DESIGN §7).
 * Resolves once it listens; stop() ends it.
 */
export async function startMotoServer(): Promise<MotoServer> {
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const endpoint = `http://127.0.0.1:${port}`;
  // Werkzeug prints "Running on <url>" once the socket listens.
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
      if (stderr.includes(`Running on ${endpoint}`)) resolve();
    });
    child.once('exit', () => reject(new Error(`moto_server exited: ${stderr}`)));
    child.once('error', reject);
  });
  return {
    endpoint,
    clientConfig: { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    },
  };
}
