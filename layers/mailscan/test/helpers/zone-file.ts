/**
 * A small BIND zone-file reader for the test DNS server: $ORIGIN, $TTL, `@`, relative names,
 * omitted owners, comments, parentheses and quoted strings, for the record types mailscan asks for.
 */
export interface ZoneRecord {
  /** Absolute, lowercase, without the trailing dot. */
  name: string;
  type: string;
  ttl: number;
  /** Record data in the shape dns-packet encodes. */
  data: unknown;
}

interface Token {
  text: string;
  quoted: boolean;
}

interface Line {
  tokens: Token[];
  /** The line began with blank space: the owner is the previous record's. */
  ownerOmitted: boolean;
}

export function parseZone(text: string, defaults: { origin?: string; ttl?: number } = {}): ZoneRecord[] {
  let origin = defaults.origin === undefined ? '' : absolute(defaults.origin);
  let ttl = defaults.ttl ?? 300;
  let owner = origin;
  const records: ZoneRecord[] = [];
  for (const line of logicalLines(text)) {
    const [first, ...rest] = line.tokens;
    if (!first) continue;
    if (!first.quoted && first.text.toUpperCase() === '$ORIGIN') {
      origin = absolute(rest[0]?.text ?? fail('$ORIGIN needs a name'));
      continue;
    }
    if (!first.quoted && first.text.toUpperCase() === '$TTL') {
      ttl = Number(rest[0]?.text ?? fail('$TTL needs a value'));
      continue;
    }
    const tokens = [...line.tokens];
    if (!line.ownerOmitted) owner = resolveName(tokens.shift()!.text, origin);
    let recordTtl = ttl;
    while (tokens.length > 0 && !tokens[0].quoted && /^(\d+|IN|CH)$/i.test(tokens[0].text)) {
      const token = tokens.shift()!.text;
      if (/^\d+$/.test(token)) recordTtl = Number(token);
    }
    const type = tokens.shift()?.text.toUpperCase() ?? fail(`no record type for ${owner}`);
    records.push({ name: owner, type, ttl: recordTtl, data: parseData(type, tokens, origin) });
  }
  return records;
}

function parseData(type: string, tokens: Token[], origin: string): unknown {
  const words = tokens.map((token) => token.text);
  const name = (index: number) => resolveName(words[index] ?? fail(`${type} needs a name`), origin);
  switch (type) {
    case 'A':
    case 'AAAA':
      return words[0];
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return name(0);
    case 'MX':
      return { preference: Number(words[0]), exchange: words[1] === '.' ? '.' : name(1) };
    case 'TXT':
      return tokens.map((token) => unescapeText(token.text));
    case 'SOA':
      return {
        mname: name(0),
        rname: name(1),
        serial: Number(words[2]),
        refresh: Number(words[3]),
        retry: Number(words[4]),
        expire: Number(words[5]),
        minimum: Number(words[6]),
      };
    case 'TLSA':
      return {
        usage: Number(words[0]),
        selector: Number(words[1]),
        matchingType: Number(words[2]),
        certificate: Buffer.from(words.slice(3).join(''), 'hex'),
      };
    case 'DNSKEY':
      return { flags: Number(words[0]), algorithm: Number(words[2]), key: Buffer.from(words.slice(3).join(''), 'base64') };
    case 'DS':
      return {
        keyTag: Number(words[0]),
        algorithm: Number(words[1]),
        digestType: Number(words[2]),
        digest: Buffer.from(words.slice(3).join(''), 'hex'),
      };
    default:
      return fail(`record type ${type} is not supported by the test zone reader`);
  }
}

/** Splits into lines of tokens, joining parenthesised continuations and dropping comments. */
function logicalLines(text: string): Line[] {
  const lines: Line[] = [];
  let tokens: Token[] = [];
  let ownerOmitted = false;
  let depth = 0;
  let atLineStart = true;
  let i = 0;
  const endLine = () => {
    if (tokens.length > 0) lines.push({ tokens, ownerOmitted });
    tokens = [];
  };
  while (i < text.length) {
    const char = text[i];
    if (atLineStart) {
      ownerOmitted = char === ' ' || char === '\t';
      atLineStart = false;
    }
    if (char === '\n') {
      if (depth === 0) {
        endLine();
        atLineStart = true;
      }
      i += 1;
    } else if (char === ';') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (char === '(' || char === ')') {
      depth += char === '(' ? 1 : -1;
      i += 1;
    } else if (char === ' ' || char === '\t' || char === '\r') {
      i += 1;
    } else if (char === '"') {
      let value = '';
      i += 1;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') {
          value += text.slice(i, i + 2);
          i += 2;
        } else {
          value += text[i];
          i += 1;
        }
      }
      i += 1;
      tokens.push({ text: value, quoted: true });
    } else {
      const start = i;
      while (i < text.length && !/[\s;()"]/.test(text[i])) i += 1;
      tokens.push({ text: text.slice(start, i), quoted: false });
    }
  }
  endLine();
  return lines;
}

/** Zone-file escapes: `\DDD` is a byte, `\X` is X. */
function unescapeText(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '\\' && /^\d{3}$/.test(text.slice(i + 1, i + 4))) {
      bytes.push(Number(text.slice(i + 1, i + 4)));
      i += 3;
    } else if (text[i] === '\\') {
      i += 1;
      bytes.push(...Buffer.from(text[i] ?? ''));
    } else {
      bytes.push(...Buffer.from(text[i]));
    }
  }
  return Buffer.from(bytes);
}

function resolveName(name: string, origin: string): string {
  if (name === '@') return origin;
  if (name.endsWith('.')) return absolute(name);
  return origin === '' ? name.toLowerCase() : `${name.toLowerCase()}.${origin}`;
}

function absolute(name: string): string {
  return name.replace(/\.$/, '').toLowerCase();
}

function fail(message: string): never {
  throw new Error(`zone file: ${message}`);
}
