/**
 * Real web servers for webscan's tests: Debian nginx and apache2 started on loopback from
 * generated configurations in a temp dir (unprivileged ports, foreground, logs in the dir), each
 * stopped by its own process id. The access log format names method, URI, status and user agent,
 * so a test reads what webscan (and only webscan) sent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, waitForListening } from '../../../../test/helpers/loopback-ports.ts';

export { freePort };

/** Waits until every port accepts, or the process exits (its stderr is the error). */
const waitForPorts = (child: ChildProcess, ports: readonly number[], stderr: () => string): Promise<void> =>
  waitForListening(child, ports, { what: 'the server', output: stderr });

export interface AccessLogEntry {
  /** When the request arrived: seconds since the epoch, with milliseconds. */
  time: number;
  /** The port the request came in on (one per server block). */
  port: number;
  method: string;
  uri: string;
  status: number;
  userAgent: string;
}

export interface RunningServer {
  dir: string;
  /** The entries of the access log so far. */
  accessLog(): Promise<AccessLogEntry[]>;
  stop(): Promise<void>;
  /** nginx only: re-reads its configuration (`nginx -s reload`); new requests see it once the new workers run. */
  reload?(): Promise<void>;
}

/** Writes `files` (paths relative to `root`) and makes the tree readable by the server's workers. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

function parseLog(text: string): AccessLogEntry[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = /^(\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+) (\S+) (\S+) (\d{3}) "(.*)"$/.exec(line);
      if (!match) throw new Error(`unexpected access log line: ${line}`);
      // nginx logs when the request ended ($msec, seconds) and how long it took ($request_time):
      // their difference is when its first byte arrived. apache's %{msec}t is that already (ms).
      const time = match[1].includes('.') ? Number(match[1]) - Number(match[2]) : Number(match[1]) / 1000;
      return { time, port: Number(match[3]), method: match[4], uri: match[5], status: Number(match[6]), userAgent: match[7] };
    });
}

async function startProcess(command: string, args: string[], dir: string, ports: number[], log: string): Promise<RunningServer> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitForPorts(child, ports, () => stderr);
  return {
    dir,
    accessLog: async () => parseLog(await readFile(log, 'utf8').catch(() => '')),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function makeServerDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  // The workers run as an unprivileged user: the tree must be readable to them.
  await chmod(dir, 0o755);
  return dir;
}

/** nginx with `http` holding the server blocks; `{{DIR}}` in it is the server's folder. */
export async function startNginx(dir: string, http: string, ports: number[]): Promise<RunningServer> {
  const log = join(dir, 'access.log');
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  log_format webscan '$msec $request_time $server_port $request_method $request_uri $status "$http_user_agent"';
  access_log ${log} webscan;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  ${http.replaceAll('{{DIR}}', dir)}
}`;
  await mkdir(join(dir, 'tmp'), { recursive: true });
  await writeFile(join(dir, 'nginx.conf'), conf);
  const args = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'];
  const server = await startProcess('nginx', args, dir, ports, log);
  server.reload = async () => {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('nginx', [...args, '-s', 'reload'], { stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`nginx -s reload exited ${code}`))));
    });
  };
  return server;
}

const APACHE_MODULES = [
  'mpm_event',
  'authz_core',
  'authz_host',
  'dir',
  'mime',
  'autoindex',
  'status',
  'headers',
  'alias',
  'rewrite',
  'ssl',
  'socache_shmcb',
];

/** apache2 with `body` after the common directives; `{{DIR}}` in it is the server's folder. */
export async function startApache(dir: string, body: string, ports: number[]): Promise<RunningServer> {
  const log = join(dir, 'access.log');
  const conf = `
ServerRoot ${dir}
DefaultRuntimeDir ${dir}
PidFile ${dir}/httpd.pid
Mutex file:${dir} default
ServerName localhost
ErrorLog ${dir}/error.log
LogLevel warn
${APACHE_MODULES.map((name) => `LoadModule ${name}_module /usr/lib/apache2/modules/mod_${name}.so`).join('\n')}
User nobody
Group nogroup
TypesConfig /etc/mime.types
LogFormat "%{msec}t 0 %p %m %U%q %>s \\"%{User-agent}i\\"" webscan
CustomLog ${log} webscan
${ports.map((port) => `Listen 127.0.0.1:${port}`).join('\n')}
${body.replaceAll('{{DIR}}', dir)}
`;
  await writeFile(join(dir, 'apache2.conf'), conf);
  return startProcess('apache2', ['-d', dir, '-f', join(dir, 'apache2.conf'), '-DFOREGROUND'], dir, ports, log);
}
