import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** PUTs `body` to an upload URL with exactly these headers (fetch would compute content-length itself). */
export function putUpload(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : request;
    const req = send(url, { method: 'PUT', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    // A server that refuses early may close before the body is written: its answer is what counts.
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET'
        ? undefined
        : reject(error),
    );
    req.end(body);
  });
}
