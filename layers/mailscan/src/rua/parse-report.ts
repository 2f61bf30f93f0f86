import { isIP } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { RuaInputError, type RuaLimits } from '../../../../lib/mail-artifacts/rua-limits.ts';
import { RecordBatch, type RuaRecord } from './record-batch.ts';

export type { AlignedResult, Disposition, RuaRecord } from './record-batch.ts';

export interface AggregateReport {
  format: 'rfc7489' | 'dmarcbis';
  orgName: string;
  email: string | null;
  reportId: string | null;
  begin: number | null;
  end: number | null;
  /** policy_published/domain, lowercased. */
  domain: string;
  policy: string | null;
  records: RecordBatch;
  /** Records dropped as unusable (no valid IP or count); the report keeps the rest. */
  skippedRecords: number;
}

const DMARCBIS_NAMESPACE = 'urn:ietf:params:xml:ns:dmarc-2.0';

/** Where each field sits, as local names below <feedback> (namespace prefixes dropped). */
const METADATA_FIELDS: Record<string, 'orgName' | 'email' | 'reportId' | 'begin' | 'end' | 'domain' | 'policy'> = {
  'report_metadata/org_name': 'orgName',
  'report_metadata/email': 'email',
  'report_metadata/report_id': 'reportId',
  'report_metadata/date_range/begin': 'begin',
  'report_metadata/date_range/end': 'end',
  'policy_published/domain': 'domain',
  'policy_published/p': 'policy',
};
const RECORD_FIELDS: Record<string, 'sourceIp' | 'count' | 'disposition' | 'dkim' | 'spf' | 'headerFrom'> = {
  'record/row/source_ip': 'sourceIp',
  'record/row/count': 'count',
  'record/row/policy_evaluated/disposition': 'disposition',
  'record/row/policy_evaluated/dkim': 'dkim',
  'record/row/policy_evaluated/spf': 'spf',
  'record/identifiers/header_from': 'headerFrom',
};

type RawRecord = Partial<Record<(typeof RECORD_FIELDS)[string], string>>;

/**
 * The paths above as a tree below <feedback>: an element is looked up in its parent's node once,
 * when it opens, instead of joining the element stack into a key at every close (2.6 million
 * strings for the largest report). Elements outside the tree are null, and so is all below them.
 */
interface PathNode {
  children: Map<string, PathNode>;
  metadata?: (typeof METADATA_FIELDS)[string];
  record?: (typeof RECORD_FIELDS)[string];
}
const ROOT: PathNode = { children: new Map() };
function nodeAt(path: string): PathNode {
  let node = ROOT;
  for (const name of path.split('/')) {
    let child = node.children.get(name);
    if (child === undefined) node.children.set(name, (child = { children: new Map() }));
    node = child;
  }
  return node;
}
for (const [path, field] of Object.entries(METADATA_FIELDS)) nodeAt(path).metadata = field;
for (const [path, field] of Object.entries(RECORD_FIELDS)) nodeAt(path).record = field;
const RECORD = nodeAt('record');
const isField = (node: PathNode | null): boolean => node !== null && (node.metadata !== undefined || node.record !== undefined);

/**
 * Parses one XML document as a DMARC aggregate report, streaming (saxes: a maintained, strict,
 * non-validating parser). No DTD and no entities: a DOCTYPE is refused as soon as it is seen, and
 * saxes knows only the five predefined entities, so billion-laughs cannot expand. The chunks are
 * decoded and parsed as they arrive (straight from the decompressor), and only the fields the
 * rollup needs are kept, so memory follows the records, not the document.
 */
export async function parseAggregateReport(chunks: AsyncIterable<Buffer>, limits: RuaLimits): Promise<AggregateReport> {
  const decoder = new StringDecoder('utf8');
  const iterator = chunks[Symbol.asyncIterator]();
  let first = '';
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    first += decoder.write(next.value);
    if (/\S/.test(first)) break;
    first = ''; // Leading whitespace (a BOM is \s too) is not worth holding.
  }
  first = first.replace(/^\uFEFF/, '');
  const start = first.search(/\S/);
  if (start === -1 || first[start] !== '<') throw new RuaInputError('not XML');

  const metadata: Partial<Record<(typeof METADATA_FIELDS)[string], string>> = {};
  const records = new RecordBatch();
  let skippedRecords = 0;
  let rawRecordCount = 0;
  let format: AggregateReport['format'] = 'rfc7489';
  let current: RawRecord | null = null;
  /** The open elements' nodes, <feedback> first. */
  const open: (PathNode | null)[] = [];
  let textBuffer = '';
  /** Whether the innermost open element is a field: only then is its text kept. */
  let keepText = false;

  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('doctype', () => {
    throw new RuaInputError('XML with a DTD or entity declarations is refused');
  });
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    let node: PathNode | null;
    if (open.length === 0) {
      if (name !== 'feedback') throw new RuaInputError('not a DMARC aggregate report (no <feedback> root)');
      if (Object.values(tag.attributes).some((value) => value === DMARCBIS_NAMESPACE)) format = 'dmarcbis';
      node = ROOT;
    } else node = open[open.length - 1]?.children.get(name) ?? null;
    open.push(node);
    if (open.length > limits.maxXmlDepth) throw new RuaInputError(`XML nests deeper than ${limits.maxXmlDepth} elements`);
    if (node === RECORD) {
      rawRecordCount += 1;
      if (rawRecordCount > limits.maxRecordsPerReport)
        throw new RuaInputError(`report has more than ${limits.maxRecordsPerReport} records`);
      current = {};
    }
    textBuffer = '';
    keepText = isField(node);
  });
  parser.on('text', (chunk) => {
    if (keepText && textBuffer.length < 1024) textBuffer += chunk;
  });
  parser.on('cdata', (chunk) => {
    if (keepText && textBuffer.length < 1024) textBuffer += chunk;
  });
  parser.on('closetag', () => {
    const node = open.pop() ?? null;
    const value = textBuffer.trim();
    textBuffer = '';
    // Text after a child element is the parent's again (as when every element's text was kept).
    keepText = isField(open[open.length - 1] ?? null);
    if (node === null) return;
    if (current !== null) {
      // The first value wins: DMARCbis allows one policy_evaluated, RFC 7489 reporters sometimes repeat.
      if (node.record !== undefined && value !== '' && current[node.record] === undefined) current[node.record] = value;
      if (node === RECORD) {
        const record = recordOf(current);
        if (record === null) skippedRecords += 1;
        else records.push(record);
        current = null;
      }
    } else if (node.metadata !== undefined && value !== '' && metadata[node.metadata] === undefined) metadata[node.metadata] = value;
  });
  parser.on('error', (error) => {
    throw error instanceof RuaInputError ? error : new RuaInputError(`malformed XML: ${error.message.split('\n')[0]}`);
  });
  parser.write(first);
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) parser.write(decoder.write(next.value));
  parser.write(decoder.end()).close();

  const domain = metadata.domain?.toLowerCase().replace(/\.$/, '');
  if (!domain) throw new RuaInputError('report has no policy_published/domain');
  return {
    format,
    orgName: metadata.orgName ?? 'unknown reporter',
    email: metadata.email ?? null,
    reportId: metadata.reportId ?? null,
    begin: epochOf(metadata.begin),
    end: epochOf(metadata.end),
    domain,
    policy: metadata.policy ?? null,
    records,
    skippedRecords,
  };
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** A record without a usable source IP or count says nothing about a sender: it is counted as skipped. */
function recordOf(raw: RawRecord): RuaRecord | null {
  const sourceIp = raw.sourceIp?.toLowerCase();
  const count = Number(raw.count ?? '1');
  if (!sourceIp || isIP(sourceIp) === 0 || !/^\d+$/.test(raw.count ?? '1') || !Number.isSafeInteger(count)) return null;
  const disposition = raw.disposition?.toLowerCase();
  return {
    sourceIp,
    count,
    disposition: disposition === 'quarantine' || disposition === 'reject' || disposition === 'pass' ? disposition : 'none',
    dkim: raw.dkim?.toLowerCase() === 'pass' ? 'pass' : 'fail',
    spf: raw.spf?.toLowerCase() === 'pass' ? 'pass' : 'fail',
    headerFrom: raw.headerFrom?.toLowerCase() ?? null,
  };
}

function epochOf(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,12}$/.test(text)) return null;
  return Number(text);
}
