/**
 * A loopback service in the shape of NVD's CVE API 2.0 (`GET /rest/json/cves/2.0`), serving the
 * CVE records of fixtures/nvd/. Its match is looser than NVD's on purpose: every record naming the
 * vendor and product of `virtualMatchString` is returned whatever its version ranges say, so what
 * the engine reports is decided by its own re-check of the ranges. It pages as NVD does
 * (`startIndex`, `resultsPerPage` capped at `pageSize`, `totalResults`), and a mode makes it
 * fail the ways the public service can: 403 and 429 with NVD's `message` header, or garbage.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../fixtures/nvd/', import.meta.url));

interface Item {
  cve: { id: string; configurations?: { nodes: { cpeMatch: { criteria: string }[] }[] }[] };
}
export const NVD_RECORDS: Item[] = readdirSync(DIR).map((file) => JSON.parse(readFileSync(DIR + file, 'utf8')) as Item);

export type NvdMode =
  'ok' | 'forbidden' | 'too_many' | 'not_json' | 'array' | 'no_id' | 'wrong_start' | 'huge_total' | 'no_vulnerabilities';

export interface NvdRequest {
  virtualMatchString: string | null;
  startIndex: string | null;
  resultsPerPage: string | null;
  apiKey: string | undefined;
}

export interface NvdServer {
  url: string;
  requests: NvdRequest[];
  close(): Promise<void>;
}

const vendorProduct = (cpe: string) => cpe.split(':').slice(3, 5).join(':');

export async function startNvdServer(mode: NvdMode = 'ok', pageSize = 2): Promise<NvdServer> {
  const requests: NvdRequest[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://nvd');
    const query = {
      virtualMatchString: url.searchParams.get('virtualMatchString'),
      startIndex: url.searchParams.get('startIndex'),
      resultsPerPage: url.searchParams.get('resultsPerPage'),
      apiKey: request.headers.apikey as string | undefined,
    };
    requests.push(query);
    if (url.pathname !== '/rest/json/cves/2.0' || request.method !== 'GET') return response.writeHead(404).end();
    const json = (value: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    switch (mode) {
      case 'forbidden':
        return response.writeHead(403, { message: 'Request forbidden by administrative rules.' }).end();
      case 'too_many':
        return response.writeHead(429).end();
      case 'not_json':
        return response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      case 'array':
        return json([]);
      case 'no_vulnerabilities':
        return json({ resultsPerPage: 0, startIndex: 0, totalResults: 0 });
      case 'huge_total':
        return json({ resultsPerPage: 0, startIndex: 0, totalResults: 1_300_000, vulnerabilities: [] });
      default:
    }
    const wanted = vendorProduct(query.virtualMatchString ?? '');
    const matching = NVD_RECORDS.filter((item) =>
      (item.cve.configurations ?? []).some((c) => c.nodes.some((n) => n.cpeMatch.some((m) => vendorProduct(m.criteria) === wanted))),
    );
    const start = Number(query.startIndex ?? '0');
    const perPage = Math.min(Number(query.resultsPerPage ?? '2000'), pageSize);
    let page: unknown[] = matching.slice(start, start + perPage);
    if (mode === 'no_id') page = page.map((item) => ({ cve: { ...(item as Item).cve, id: undefined } }));
    json({
      resultsPerPage: page.length,
      startIndex: mode === 'wrong_start' ? start + 1 : start,
      totalResults: matching.length,
      format: 'NVD_CVE',
      version: '2.0',
      timestamp: '2026-11-28T17:00:00.000',
      vulnerabilities: page,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
