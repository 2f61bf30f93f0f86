/**
 * A loopback front that checks S3 presigned URLs the way S3 does, before s3rver (which does not:
 * s3rver 3.7 leaves SigV4 query signatures unverified). For a request carrying `X-Amz-Signature` in
 * its query it recomputes the signature from what actually arrived (method, path, query, and the
 * values of the headers `X-Amz-SignedHeaders` names) and answers 403 like S3 when it differs or the
 * URL has expired; otherwise it forwards the request to s3rver untouched.
 *
 * The SigV4 here is written from the AWS specification with node:crypto, not with the SDK's signer,
 * so the presigner is not checked by its own code; `verifyPresigned` is tested against the presigned
 * URL example in the S3 documentation. Requests signed in the Authorization header (the SDK's own
 * calls: GetObject, DeleteObject) pass through unverified; a request with neither is refused.
 *
 *   const front = await startSigV4Front({ target: `http://127.0.0.1:${s3rverPort}`, secrets: { S3RVER: 'S3RVER' } });
 *   makeS3Client({ endpoint: front.url, ... });
 *   await front.close();
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, request as forward, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PresignedRequest {
  method: string;
  /** The request target as received: raw path and query. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface Refusal {
  status: 403;
  code: 'SignatureDoesNotMatch' | 'AccessDenied' | 'InvalidAccessKeyId' | 'AuthorizationQueryParametersError';
  message: string;
}

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - . _ ~ is %XX (uppercase). */
function uriEncode(text: string, keepSlash = false): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      if (/[A-Za-z0-9\-._~]/.test(char) || (keepSlash && char === '/')) return char;
      return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

/** `20130524T000000Z` → Date, or null. */
function parseAmzDate(text: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  return match ? new Date(Date.UTC(+match[1], +match[2] - 1, +match[3], +match[4], +match[5], +match[6])) : null;
}

/**
 * Null when the presigned request is valid at `now` for the key's secret, else S3's refusal. Only
 * the signature's inputs count: a header not named in X-Amz-SignedHeaders may be anything.
 */
export function verifyPresigned(request: PresignedRequest, secrets: Record<string, string>, now: Date): Refusal | null {
  const [rawPath, rawQuery = ''] = request.url.split('?', 2);
  const pairs = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [name, value = ''] = pair.split('=', 2);
      return [decodeURIComponent(name.replace(/\+/g, ' ')), decodeURIComponent(value.replace(/\+/g, ' '))] as const;
    });
  const param = (name: string) => pairs.find(([key]) => key === name)?.[1];
  const algorithm = param('X-Amz-Algorithm');
  const credential = param('X-Amz-Credential');
  const amzDate = param('X-Amz-Date');
  const expires = param('X-Amz-Expires');
  const signedHeaders = param('X-Amz-SignedHeaders');
  const provided = param('X-Amz-Signature');
  const malformed = (message: string): Refusal => ({ status: 403, code: 'AuthorizationQueryParametersError', message });
  if (algorithm !== 'AWS4-HMAC-SHA256') return malformed('X-Amz-Algorithm must be AWS4-HMAC-SHA256');
  if (!credential || !amzDate || !expires || !signedHeaders || !provided)
    return malformed('a presigned URL needs X-Amz-Credential, -Date, -Expires, -SignedHeaders and -Signature');
  const [accessKeyId, shortDate, region, service, terminator, ...extra] = credential.split('/');
  if (extra.length > 0 || terminator !== 'aws4_request' || !shortDate || !region || !service)
    return malformed('X-Amz-Credential is not <key>/<date>/<region>/<service>/aws4_request');
  const signedAt = parseAmzDate(amzDate);
  const lifetime = Number(expires);
  if (signedAt === null || amzDate.slice(0, 8) !== shortDate) return malformed('X-Amz-Date is not the credential scope date');
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > 604_800) return malformed('X-Amz-Expires must be 1 to 604800 seconds');
  const secret = secrets[accessKeyId];
  if (secret === undefined)
    return { status: 403, code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  if (now.getTime() > signedAt.getTime() + lifetime * 1000) return { status: 403, code: 'AccessDenied', message: 'Request has expired' };

  const names = signedHeaders.split(';');
  if (!names.includes('host') || names.some((name) => name !== name.toLowerCase()) || names.join(';') !== [...names].sort().join(';'))
    return malformed('X-Amz-SignedHeaders must be sorted, lowercase and include host');
  const canonicalHeaders = names
    .map((name) => {
      const value = request.headers[name];
      const text = Array.isArray(value) ? value.join(',') : (value ?? '');
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalPath = rawPath
    .split('/')
    .map((segment) => uriEncode(decodeURIComponent(segment)))
    .join('/');
  const canonicalQuery = pairs
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEncode(name), uriEncode(value)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const payloadHash = param('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const canonicalRequest = [request.method.toUpperCase(), canonicalPath, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join(
    '\n',
  );
  const scope = `${shortDate}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, shortDate), region), service), 'aws4_request');
  const expected = hmac(signingKey, stringToSign).toString('hex');
  if (expected !== provided)
    return {
      status: 403,
      code: 'SignatureDoesNotMatch',
      message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    };
  return null;
}

export interface SigV4Front {
  url: string;
  /** Every presigned request seen, with the refusal it got (null: forwarded). */
  seen: { method: string; path: string; refusal: Refusal | null }[];
  close(): Promise<void>;
}

/** Starts the front on a random loopback port; `now` is the clock expiry is judged by (real time by default). */
export async function startSigV4Front({
  target,
  secrets,
  now = () => new Date(),
}: {
  target: string;
  secrets: Record<string, string>;
  now?: () => Date;
}): Promise<SigV4Front> {
  const upstream = new URL(target);
  const seen: SigV4Front['seen'] = [];
  const server = createServer((incoming, outgoing) => {
    const url = incoming.url ?? '/';
    const presigned = /[?&]X-Amz-Signature=/.test(url);
    let refusal: Refusal | null = null;
    if (presigned) {
      try {
        refusal = verifyPresigned({ method: incoming.method ?? 'GET', url, headers: incoming.headers }, secrets, now());
      } catch {
        refusal = { status: 403, code: 'AuthorizationQueryParametersError', message: 'the query string is not well formed' };
      }
      seen.push({ method: incoming.method ?? 'GET', path: url.split('?')[0], refusal });
    } else if (incoming.headers.authorization === undefined) {
      refusal = { status: 403, code: 'AccessDenied', message: 'Access Denied' };
    }
    if (refusal) {
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${refusal.message}</Message></Error>`;
      // Like S3: answer at once, without reading a body the request has no right to send.
      outgoing.writeHead(refusal.status, {
        'content-type': 'application/xml',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      });
      outgoing.end(body);
      return;
    }
    const proxied = forward(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on('error', (error) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`front: ${error.message}`);
    });
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
