/**
 * A loopback HTTP server speaking what a provider's API answers (no local GitHub, GitLab or Slack
 * exists): each test gives the answer per request. It records what it was asked, so a test sees
 * that only read calls were made and where the token went.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Answer = { status: number; headers?: Record<string, string>; body: string } | 'hang';

export interface FakeApi {
  origin: string;
  seen: Seen[];
  answer: (handler: (request: Seen) => Answer) => void;
  close(): Promise<void>;
}

export async function startFakeApi(): Promise<FakeApi> {
  let handler: (request: Seen) => Answer = () => ({ status: 404, body: '{}' });
  const seen: Seen[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      const answer = handler(entry);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    answer: (next) => {
      handler = next;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** AWS's query-protocol answers (STS, IAM), as XML. */
export function awsXml(action: string, result: string, namespace = 'https://iam.amazonaws.com/doc/2010-05-08/'): string {
  return `<${action}Response xmlns="${namespace}"><${action}Result>${result}</${action}Result><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></${action}Response>`;
}

export function awsError(code: string, message: string): string {
  return `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`;
}

/** The Action of a query-protocol request body. */
export const actionOf = (body: string): string => new URLSearchParams(body).get('Action') ?? '';
