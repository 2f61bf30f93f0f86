import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A real Git server for tests: Debian's `git http-backend` (the CGI program behind most
 * self-hosted smart-HTTP servers) behind a loopback node HTTP server on an ephemeral port.
 * Repositories are made with the `git` binary under a temporary root; a repository can demand
 * basic auth with a token; `/site/...` answers an HTML page, as a URL that is not a Git remote does;
 * `/hang.git/...` never answers.
 */
export const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

export function gitAvailable(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return existsSync(GIT_HTTP_BACKEND);
  } catch {
    return false;
  }
}

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** A repository a test builds commit by commit with the git binary. */
export class TestRepository {
  private commits = 0;
  constructor(readonly dir: string) {}

  git(...args: string[]): string {
    const date = `${1_700_000_000 + this.commits * 3600} +0000`;
    return execFileSync('git', args, {
      cwd: this.dir,
      env: { ...process.env, ...IDENTITY, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    }).trim();
  }

  /** Writes (string) or deletes (null) files, then commits them all; returns the commit id. */
  async commit(message: string, files: Record<string, string | Uint8Array | null>): Promise<string> {
    for (const [path, content] of Object.entries(files)) {
      const file = join(this.dir, path);
      if (content === null) await rm(file, { force: true });
      else {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, content);
      }
    }
    this.git('add', '--all');
    this.commits += 1;
    this.git('commit', '--quiet', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD');
  }
}

export interface GitServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  root: string;
  /** A new repository served at `${origin}/${name}.git` (`name` may have folders: `acme/app`), on branch `main`. */
  repository(name: string, options?: { token?: string }): Promise<TestRepository>;
  requests: { method: string; url: string; authorized: boolean }[];
  close(): Promise<void>;
}

function authorizedFor(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) === token;
}

function runBackend(root: string, req: IncomingMessage, res: ServerResponse, pathInfo: string, query: string): void {
  const child = spawn(GIT_HTTP_BACKEND, [], {
    env: {
      ...IDENTITY,
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: pathInfo,
      QUERY_STRING: query,
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      REMOTE_ADDR: '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    headersSent = true;
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => {
    if (!headersSent) res.writeHead(502);
    res.end();
  });
}

/** `root`: serve the repositories already there (a benchmark's cache) and leave them on close. */
export async function startGitServer(options: { root?: string } = {}): Promise<GitServer> {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'git-server-')));
  const tokens = new Map<string, string>();
  const requests: GitServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // The repository is the path up to its `.git` (`/app.git/...`, `/acme/app.git/...`).
    const name = /^\/(.+?)\.git(?:\/|$)/.exec(url.pathname)?.[1] ?? url.pathname.split('/')[1] ?? '';
    const token = tokens.get(name);
    const authorized = authorizedFor(req, token);
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', authorized: req.headers.authorization !== undefined });
    if (name === 'site') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Not a repository</title><p>Hello</p>');
      return;
    }
    // A server that never answers (`/hang.git/...`): a scan of it can only end at its deadline.
    if (name === 'hang') return;
    if (!authorized) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end('authentication required');
      return;
    }
    runBackend(root, req, res, url.pathname, url.search.slice(1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    root,
    requests,
    async repository(name, options = {}) {
      const dir = join(root, `${name}.git`);
      await mkdir(dir, { recursive: true });
      const repo = new TestRepository(dir);
      repo.git('init', '--quiet', '--initial-branch=main');
      if (options.token !== undefined) tokens.set(name, options.token);
      return repo;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (options.root === undefined) await rm(root, { recursive: true, force: true });
    },
  };
}
