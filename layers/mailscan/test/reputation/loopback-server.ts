import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** A real HTTP(S) server on 127.0.0.1 that records every request it receives. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The request body as text (read before the handler runs). */
  body: string;
}

export interface LoopbackServer {
  port: number;
  /** `http://127.0.0.1:<port>` or `https://127.0.0.1:<port>`. */
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export async function startLoopbackServer(handler: Handler, tls?: { key: string; cert: string }): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const listener: Handler = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      handler(req, res);
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Routes by path; anything else is a 404. */
export function routes(table: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>): Handler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = table[path];
    if (route) route(req, res);
    else res.writeHead(404).end();
  };
}

export function sendBody(
  body: string | Uint8Array,
  contentType = 'application/octet-stream',
  status = 200,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };
}

export function sendJson(value: unknown, status = 200): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return sendBody(JSON.stringify(value), 'application/json', status);
}
