/**
 * The test DNS server in a child process, for measurements: in the scanner's own process its work
 * would compete with the scan for the event loop, which a real, remote server never does.
 * Takes the serialisable options of startDnsServer (no per-name behaviours).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startDnsServer, type TestDnsServerOptions } from './dns-server.ts';

export interface DnsServerProcess {
  host: string;
  port: number;
  address: string;
  close(): Promise<void>;
}

export async function startDnsServerProcess(options: TestDnsServerOptions): Promise<DnsServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`test DNS server process exited with ${code}`)));
    child.stdout.once('data', (line: Buffer) => resolve(Number(line.toString().trim())));
  });
  return {
    host: options.host ?? '127.0.0.1',
    port,
    address: `${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startDnsServer(JSON.parse(process.argv[2] ?? '{}') as TestDnsServerOptions);
  process.stdout.write(`${server.port}\n`);
}
