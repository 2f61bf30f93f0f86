import { Agent, request } from 'node:http';

export interface RawRequest {
  method?: string;
  /** Sent exactly as given: no URL parsing, no dot-segment resolution, no re-encoding. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  json: any;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * An HTTP client that sends the request target byte for byte. fetch() and new URL() resolve
 * `%2e%2e` and `..` before sending, which hides exactly the paths a hostile client sends.
 */
export function rawRequest(baseUrl: string, { method = 'GET', path, headers = {}, body }: RawRequest): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: hostname, port, method, path, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
      response.on('error', reject);
    });
    // A server that refuses early (the upload stand-in, like S3) may close before the body is
    // written: its answer is what counts.
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    outgoing.end(body);
  });
}
