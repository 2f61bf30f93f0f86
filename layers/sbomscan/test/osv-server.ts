/**
 * A loopback OSV service for the tests: `POST /v1/querybatch` and `GET /v1/vulns/{id}` over the real
 * OSV records in fixtures/osv/, matched by ecosystem, name and version the way OSV does for the
 * ranges these records use (SEMVER and ECOSYSTEM introduced/fixed on dotted numbers, `versions`
 * lists). A mode makes it fail the ways a real service can: 500, not JSON, a huge body, a hang, a lie.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('./fixtures/osv/', import.meta.url));

interface OsvEvent {
  introduced?: string;
  fixed?: string;
}
interface OsvRecord {
  id: string;
  modified: string;
  affected?: Array<{ package?: { ecosystem?: string; name?: string }; versions?: string[]; ranges?: Array<{ events?: OsvEvent[] }> }>;
}
export const OSV_RECORDS: OsvRecord[] = readdirSync(DIR).map((file) => JSON.parse(readFileSync(DIR + file, 'utf8')) as OsvRecord);

function compare(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function affects(record: OsvRecord, ecosystem: string, name: string, version: string): boolean {
  return (record.affected ?? []).some((affected) => {
    if (affected.package?.ecosystem !== ecosystem || affected.package.name !== name) return false;
    if ((affected.versions ?? []).includes(version)) return true;
    return (affected.ranges ?? []).some((range) => {
      let introduced: string | undefined;
      for (const event of range.events ?? []) {
        if (event.introduced !== undefined) introduced = event.introduced;
        if (event.fixed !== undefined && introduced !== undefined) {
          if ((introduced === '0' || compare(version, introduced) >= 0) && compare(version, event.fixed) < 0) return true;
          introduced = undefined;
        }
      }
      return false;
    });
  });
}

export type OsvMode = 'ok' | 'error500' | 'not_json' | 'huge' | 'hang' | 'short_results' | 'no_ids';

export interface OsvServer {
  url: string;
  mode: OsvMode;
  queries: Array<{ package: { name: string; ecosystem: string }; version: string }>;
  close(): Promise<void>;
}

export async function startOsvServer(): Promise<OsvServer> {
  const state: OsvServer = { url: '', mode: 'ok', queries: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (state.mode === 'hang') return;
      if (state.mode === 'error500') return void res.writeHead(500).end('{"code":13,"message":"internal"}');
      if (state.mode === 'not_json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>maintenance</html>');
      if (state.mode === 'huge') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const block = Buffer.alloc(1024 * 1024, 0x20);
        for (let i = 0; i < 50; i++) res.write(block);
        return void res.end('{}');
      }
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST' && url.pathname === '/v1/querybatch') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { queries: OsvServer['queries'] };
        state.queries.push(...body.queries);
        let results = body.queries.map((query) => ({
          vulns: OSV_RECORDS.filter((record) => affects(record, query.package.ecosystem, query.package.name, query.version)).map(
            (record) => ({ id: record.id, modified: record.modified }),
          ),
        }));
        if (state.mode === 'short_results') results = results.slice(1);
        if (state.mode === 'no_ids')
          results = results.map((result) => ({ vulns: result.vulns.length ? [{ id: '', modified: '2024-01-01T00:00:00Z' }] : [] }));
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      }
      const vuln = /^\/v1\/vulns\/(.+)$/.exec(url.pathname);
      const record = vuln ? OSV_RECORDS.find((candidate) => candidate.id === decodeURIComponent(vuln[1])) : undefined;
      if (req.method === 'GET' && record)
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(record));
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":5,"message":"Bug not found."}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
