import { HeaderInputError, type HeaderLimits } from './header-limits.ts';

/** One header field as it appears in the message: name lowercased, raw bytes kept for canonicalisation. */
export interface RawHeaderField {
  key: string;
  /** The whole field, folding included, without its final line break. */
  line: string;
}

/**
 * Checks that the bytes are an RFC 5322 message within the bounds and returns its header fields, top
 * to bottom. mailauth parses the message again for the cryptography; this pass exists to refuse
 * what is not a message, or too large, before anything else reads it.
 */
export function readHeaderFields(message: Buffer, limits: HeaderLimits): RawHeaderField[] {
  if (message.length > limits.maxMessageBytes)
    throw new HeaderInputError(`message is ${message.length} bytes, over the ${limits.maxMessageBytes}-byte limit`);
  const window = message.subarray(0, limits.maxHeaderSectionBytes + 4).toString('latin1');
  const end = window.search(/\r?\n\r?\n/);
  const section = end === -1 ? window : window.slice(0, end);
  if (end === -1 && message.length > limits.maxHeaderSectionBytes)
    throw new HeaderInputError(`header section is over ${limits.maxHeaderSectionBytes} bytes`);
  const fields: RawHeaderField[] = [];
  for (const physical of section.split(/\r?\n/)) {
    if (/^[ \t]/.test(physical)) {
      const last = fields.at(-1);
      if (last === undefined) throw new HeaderInputError('not an RFC 5322 message: it starts with a continuation line');
      last.line += `\r\n${physical}`;
      if (last.line.length > limits.maxFieldBytes) throw new HeaderInputError(`header ${last.key} is over ${limits.maxFieldBytes} bytes`);
      continue;
    }
    const colon = physical.indexOf(':');
    if (colon <= 0 || !/^[\x21-\x39\x3b-\x7e]+$/.test(physical.slice(0, colon))) {
      if (fields.length === 0 && /^From /.test(physical)) continue; // an mbox separator line
      throw new HeaderInputError(`not an RFC 5322 message: "${physical.slice(0, 40)}" is not a header field`);
    }
    fields.push({ key: physical.slice(0, colon).toLowerCase(), line: physical });
    if (fields.length > limits.maxHeaderFields) throw new HeaderInputError(`message has more than ${limits.maxHeaderFields} header fields`);
    if (physical.length > limits.maxFieldBytes)
      throw new HeaderInputError(`header ${fields.at(-1)?.key} is over ${limits.maxFieldBytes} bytes`);
  }
  if (fields.length === 0) throw new HeaderInputError('not an RFC 5322 message: no header fields');
  if (!fields.some((field) => field.key === 'from' || field.key === 'received' || field.key === 'date')) {
    throw new HeaderInputError('not an RFC 5322 message: no From, Date or Received header');
  }
  return fields;
}

/** The unfolded value of a field (after the colon), whitespace runs collapsed. */
export function valueOf(field: RawHeaderField): string {
  return field.line
    .slice(field.line.indexOf(':') + 1)
    .replace(/\r?\n[ \t]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A DKIM-style tag list (`a=b; c=d`) as a map; keys lowercased, values with whitespace removed. */
export function tagsOf(value: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    if (!tags.has(key)) tags.set(key, part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}
