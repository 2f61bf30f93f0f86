import { closeSync, openSync, writeSync } from 'node:fs';
import type { GitHttpClient, GitHttpResponse } from './git-http.ts';
import type { PackSource } from './pack-store.ts';
import { FLUSH, packetText, pktLine, readPackets, type Packet } from './pkt-line.ts';

/**
 * The fetch half of Git's smart HTTP protocol, version 0 (gitprotocol-http, gitprotocol-pack):
 * the ref advertisement, then one stateless `git-upload-pack` request (want, deepen, done) whose
 * response carries the pack on side-band 1. Every server speaks it (GitHub, GitLab, Bitbucket,
 * Gitea, Azure DevOps, git http-backend). The pack goes to a file as it arrives, which the pack
 * reader indexes at the same time; nothing of it is held in memory.
 */

/** The server answered with an HTTP error status. */
export class GitHttpStatus extends Error {
  override readonly name = 'GitHttpStatus';
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** The URL answers, but not as a Git smart-HTTP server. */
export class NotSmartHttp extends Error {
  override readonly name = 'NotSmartHttp';
  constructor() {
    super('the URL does not speak Git smart HTTP');
  }
}

/** The server stopped the fetch with an error of its own (ERR packet, side-band 3). */
export class RemoteFailure extends Error {
  override readonly name = 'RemoteFailure';
  constructor() {
    super('the server ended the fetch with an error');
  }
}

/** The pack reader stopped reading: the rest of the transfer is not wanted. */
export class PackNotWanted extends Error {
  override readonly name = 'PackNotWanted';
}

export interface Advertisement {
  /** Ref name → object id. */
  refs: Map<string, string>;
  /** The ref HEAD points at (the `symref=HEAD:…` capability), when the server says. */
  head?: string;
  capabilities: Set<string>;
}

function repositoryUrl(url: string, suffix: string): string {
  return `${url.replace(/\/+$/, '')}/${suffix}`;
}

function contentType(response: GitHttpResponse): string {
  return (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

async function discard(response: GitHttpResponse): Promise<void> {
  for await (const _chunk of response.body) void _chunk;
}

async function expectOk(response: GitHttpResponse, type: string): Promise<void> {
  if (response.statusCode !== 200) {
    await discard(response).catch(() => undefined);
    throw new GitHttpStatus(response.statusCode);
  }
  if (contentType(response) !== type) {
    await discard(response).catch(() => undefined);
    throw new NotSmartHttp();
  }
}

/**
 * GET info/refs: the capabilities of upload-pack and the refs a fetch of `branch` (default: what
 * HEAD points at) can need: HEAD, that branch, HEAD's symref target, and, from a server that names
 * no symref, the branches at HEAD's commit. The rest stream past unkept: a server may advertise
 * millions of refs, and a map of them all was most of the process's memory.
 */
export async function advertisedRefs(http: GitHttpClient, url: string, branch?: string): Promise<Advertisement> {
  const response = await http.request({
    url: repositoryUrl(url, 'info/refs?service=git-upload-pack'),
    method: 'GET',
    headers: { 'User-Agent': `git/2.0 (agent=${http.agent})` },
  });
  await expectOk(response, 'application/x-git-upload-pack-advertisement');
  const refs = new Map<string, string>();
  const wantedRef = branch === undefined ? undefined : branch.startsWith('refs/') ? branch : `refs/heads/${branch}`;
  let capabilities = new Set<string>();
  let serviceLine = false;
  let first = true;
  for await (const packet of readPackets(response.body)) {
    const text = packetText(packet);
    if (text === null) continue;
    if (!serviceLine) {
      if (text !== '# service=git-upload-pack') throw new NotSmartHttp();
      serviceLine = true;
      continue;
    }
    let line = text;
    if (first) {
      const nul = line.indexOf('\0');
      if (nul !== -1) {
        capabilities = new Set(
          line
            .slice(nul + 1)
            .split(' ')
            .filter(Boolean),
        );
        line = line.slice(0, nul);
      }
      first = false;
    }
    const match = /^([0-9a-f]{40}) (\S+)$/.exec(line);
    if (!match) throw new NotSmartHttp();
    const [, oid, ref] = match;
    if (ref === 'capabilities^{}') continue;
    const symref = symrefOf(capabilities);
    const needed =
      ref === 'HEAD' ||
      ref === wantedRef ||
      ref === symref ||
      (wantedRef === undefined && symref === undefined && ref.startsWith('refs/heads/') && oid === refs.get('HEAD'));
    if (needed) refs.set(ref, oid);
  }
  if (!serviceLine) throw new NotSmartHttp();
  return { refs, head: symrefOf(capabilities), capabilities };
}

function symrefOf(capabilities: ReadonlySet<string>): string | undefined {
  for (const capability of capabilities) if (capability.startsWith('symref=HEAD:')) return capability.slice('symref=HEAD:'.length);
  return undefined;
}

/**
 * The pack file as it arrives (pack-store.ts reads behind it): each side-band chunk appended,
 * waiters woken when the bytes they need are there, when the transfer ends, or when it fails.
 */
export class PackFileWriter implements PackSource {
  private readonly fd: number;
  private waiters: { bytes: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  private failure: Error | undefined;
  received = 0;
  done = false;
  private stopped = false;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  write(chunk: Buffer): void {
    if (this.stopped) throw new PackNotWanted();
    writeSync(this.fd, chunk);
    this.received += chunk.length;
    this.wake();
  }

  waitFor(bytes: number): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.done || this.received >= bytes) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ bytes, resolve, reject }));
  }

  /** The transfer ended: the file is complete (PackStore checks it is a whole pack). */
  finish(): void {
    this.close();
    this.done = true;
    this.wake();
  }

  /** The reader gave up (a damaged pack): the transfer ends at its next chunk. */
  stop(): void {
    this.stopped = true;
  }

  /** The transfer failed: readers waiting for more get the error. */
  fail(error: unknown): void {
    this.close();
    this.failure = error instanceof Error ? error : new Error(String(error));
    for (const waiter of this.waiters) waiter.reject(this.failure);
    this.waiters = [];
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (this.done || this.received >= waiter.bytes) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  private close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

export interface FetchRequest {
  want: string;
  /** Commits of history to ask for (`deepen`); undefined for all of it. */
  depth?: number;
  capabilities: Set<string>;
  /** Where the pack is written, as it arrives. */
  pack: PackFileWriter;
}

export interface FetchResult {
  packBytes: number;
  /** Commits whose parents were left out (the shallow boundary). */
  shallow: string[];
}

function fetchBody(request: FetchRequest, agent: string): Buffer {
  const offered = request.capabilities;
  const band = offered.has('side-band-64k') ? 'side-band-64k' : offered.has('side-band') ? 'side-band' : undefined;
  if (band === undefined) throw new NotSmartHttp();
  const wanted = [band, 'ofs-delta', 'shallow', 'no-progress'].filter((capability) => offered.has(capability));
  const lines = [pktLine(`want ${request.want} ${[...wanted, `agent=${agent}`].join(' ')}\n`)];
  if (request.depth !== undefined && offered.has('shallow')) lines.push(pktLine(`deepen ${request.depth}\n`));
  lines.push(FLUSH, pktLine('done\n'));
  return Buffer.concat(lines);
}

/**
 * POST git-upload-pack for one commit (and its history to `depth`), the pack appended to
 * `request.pack` as it arrives; the writer is finished, or failed with the error, at the end.
 */
export async function fetchPack(http: GitHttpClient, url: string, request: FetchRequest): Promise<FetchResult> {
  const response = await http.request({
    url: repositoryUrl(url, 'git-upload-pack'),
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-git-upload-pack-request',
      Accept: 'application/x-git-upload-pack-result',
      'User-Agent': `git/2.0 (agent=${http.agent})`,
    },
    body: fetchBody(request, http.agent),
  });
  const writer = request.pack;
  const shallow: string[] = [];
  let inPack = false;
  try {
    await expectOk(response, 'application/x-git-upload-pack-result');
    for await (const packet of readPackets(response.body)) {
      if (packet.kind !== 'data') {
        if (inPack) break;
        continue;
      }
      if (inPack || isSideBand(packet)) {
        inPack = true;
        const band = packet.payload[0];
        if (band === 1) writer.write(packet.payload.subarray(1));
        else if (band === 3) throw new RemoteFailure();
        continue;
      }
      const text = packetText(packet)!;
      if (text.startsWith('shallow ')) shallow.push(text.slice(8));
      else if (text.startsWith('ERR ')) throw new RemoteFailure();
      else if (!(text === 'NAK' || text.startsWith('ACK ') || text.startsWith('unshallow '))) throw new NotSmartHttp();
    }
    writer.finish();
  } catch (error) {
    writer.fail(error);
    throw error;
  }
  return { packBytes: writer.received, shallow };
}

/** A side-band packet: its first byte is the band (1 pack, 2 progress, 3 error), never text. */
function isSideBand(packet: Packet & { kind: 'data' }): boolean {
  return packet.payload[0] >= 1 && packet.payload[0] <= 3;
}
