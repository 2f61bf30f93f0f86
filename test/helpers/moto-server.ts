import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** One `moto_server` on a loopback port, and what an SDK client needs to reach it. */
export interface MotoServer {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  region: string;
  accountId: string;
  /** Client options for any AWS SDK v3 client: the endpoint, the region and moto's test keys. */
  clientConfig: { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  /** Forget every resource of every service (moto's reset API): a clean account for the next test. */
  reset(): Promise<void>;
  /** The emails SES accepted since the last reset, from moto's model data (it delivers nothing). */
  sentEmails(): Promise<{ source: string; destinations: { ToAddresses?: string[] }; subject: string; body: string }[]>;
  close(): Promise<void>;
  /** The same as close() (the vault's KMS tests call it so). */
  stop(): Promise<void>;
  /**
   * Makes moto check signatures and evaluate IAM policies (DESIGN §7) after the next `free`
   * actions, which it lets through unauthenticated (to create the first user and key): moto's
   * `INITIAL_NO_AUTH_ACTION_COUNT`, reset for this server through its API.
   */
  enforceAuthAfter(free: number): Promise<void>;
}

const REGION = 'eu-west-1';
// moto's default account; ARNs it builds name it.
const ACCOUNT_ID = '123456789012';
const STARTUP_MS = 20_000;
const LISTENING = /Running on (http:\/\/127\.0\.0\.1:\d+)/;

/**
 * Starts `moto_server` (moto, on the machine image's Python; DESIGN §7) on a free loopback port
 * (port 0: werkzeug prints the port it bound, so no port is guessed and raced for). One per test
 * file: a start costs about a second of Python imports, a reset a few milliseconds.
 *
 * A machine without moto fails here, loudly, with what to install: the AWS adapters' only test
 * against something that speaks AWS's wire protocol must not turn into a skip.
 */
export async function startMotoServer(): Promise<MotoServer> {
  let child: ChildProcess;
  try {
    child = spawn('moto_server', ['-H', '127.0.0.1', '-p', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
    });
    await once(child, 'spawn');
  } catch (error) {
    throw new Error(
      `moto_server could not be started (${error instanceof Error ? error.message : String(error)}): ` +
        'the AWS adapters are tested against it; install moto with its server extra (pip install "moto[server]==5.2.1")',
    );
  }
  const output: string[] = [];
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`moto_server printed no address within ${STARTUP_MS} ms:\n${output.join('\n')}`)),
      STARTUP_MS,
    );
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        const match = LISTENING.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    }
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`moto_server exited with ${code} before listening:\n${output.join('\n')}`));
    });
  });
  const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
  const close = async () => {
    if (child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  return {
    endpoint,
    region: REGION,
    accountId: ACCOUNT_ID,
    clientConfig: { endpoint, region: REGION, credentials },
    async reset() {
      const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`moto reset answered ${response.status}`);
    },
    async sentEmails() {
      const response = await fetch(`${endpoint}/moto-api/data.json`);
      const data = (await response.json()) as { ses?: { Message?: unknown[] } };
      return (data.ses?.Message ?? []) as Awaited<ReturnType<MotoServer['sentEmails']>>;
    },
    close,
    stop: close,
    async enforceAuthAfter(free) {
      const response = await fetch(`${endpoint}/moto-api/reset-auth`, { method: 'POST', body: String(free) });
      if (!response.ok) throw new Error(`moto reset-auth answered ${response.status}`);
    },
  };
}
