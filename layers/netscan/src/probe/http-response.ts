/** An HTTP/1.x response read off a socket by a probe: status, headers (lowercase names), body. */
export interface HttpResponse {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/**
 * Parses the bytes received so far: `'more'` while the head or a declared body is incomplete
 * (and the server has not closed), `null` when they are not an HTTP response. Without a
 * Content-Length the body runs to the close (the probes send HTTP/1.0 requests with
 * `Connection: close`); chunked bodies are de-chunked when complete.
 */
export function parseHttpResponse(bytes: Buffer, closed: boolean): HttpResponse | null | 'more' {
  const prefix = bytes.toString('latin1', 0, Math.min(bytes.length, 9));
  if (!'HTTP/1.'.startsWith(prefix.slice(0, 7)) && !prefix.startsWith('HTTP/1.')) return null;
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return closed || bytes.length > 65_536 ? null : 'more';
  const lines = bytes.toString('latin1', 0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
  if (!status) return null;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = bytes.subarray(headEnd + 4);
  const length = headers.get('content-length');
  if (length !== undefined && /^\d+$/.test(length)) {
    if (body.length < Number(length)) return closed ? { status: Number(status[1]), headers, body } : 'more';
    body = body.subarray(0, Number(length));
  } else if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
    const dechunked = dechunk(body);
    if (dechunked === 'more') return closed ? { status: Number(status[1]), headers, body } : 'more';
    body = dechunked;
  } else if (!closed) return 'more';
  return { status: Number(status[1]), headers, body };
}

function dechunk(body: Buffer): Buffer | 'more' {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd === -1) return 'more';
    const size = Number.parseInt(body.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size)) return Buffer.concat(parts);
    if (size === 0) return Buffer.concat(parts);
    if (body.length < lineEnd + 2 + size + 2) return 'more';
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** The body as JSON, or undefined when it is not JSON. */
export function jsonBody(response: HttpResponse): unknown {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    return undefined;
  }
}
