import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { RUA_LIMITS } from '../../../../lib/mail-artifacts/rua-limits.ts';
import type { RollupRow } from '../../src/rua/rollup.ts';
import { runRua } from '../../src/rua/run-rua.ts';
import { readReportFile } from '../../../../lib/mail-artifacts/rua-unpack.ts';
import { deflatedZeros, zipOf } from '../helpers/archives.ts';
import { alignmentOf, generateReport, ipOf } from '../helpers/rua-reports.ts';

const fixtures = fileURLToPath(new URL('../../../../test/fixtures/mailscan/rua/', import.meta.url));
const fixture = (name: string) => join(fixtures, name);
const work = mkdtempSync(join(tmpdir(), 'rua-surface-'));
const write = (name: string, content: string | Buffer) => {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
};

type Data = {
  totals: Record<string, unknown>;
  rollup: RollupRow[];
  reporters: { org_name: string; reports: number; messages: number }[];
  formats: string[];
  files: { file: string; error?: string }[];
};
const rua = async (files: string[], domain = 'good.test') => {
  const result = await runRua({ domain, files });
  return { ...result, data: result.data as unknown as Data };
};
const rowOf = (rows: RollupRow[], ip: string) => rows.find((row) => row.source_ip === ip);

describe('rua surface', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('reads the same reports alike as XML, gzip and zip', async () => {
    for (const reporter of ['google', 'microsoft', 'yahoo', 'dmarcbis']) {
      const [xml, gz, zip] = await Promise.all(
        [`${reporter}.xml`, `${reporter}.xml.gz`, `${reporter}.zip`].map((name) => rua([fixture(name)])),
      );

      expect(xml.errors).toEqual([]);
      expect(xml.data.totals.reports).toBe(1);
      expect(gz.data.rollup).toEqual(xml.data.rollup);
      expect(zip.data.rollup).toEqual(xml.data.rollup);
    }
  });

  it('rolls up per source IP across Google, Microsoft, Yahoo and DMARCbis reports', async () => {
    const result = await rua(['google.xml', 'microsoft.zip', 'yahoo.xml.gz', 'dmarcbis.xml'].map(fixture));

    expect(result.status).toBe('ok');
    expect(result.checks).toEqual([
      {
        rules: ['mailscan.dmarc.rua_misalignment'],
        outcome: 'ran',
        detail: expect.stringMatching(
          /^4 aggregate reports from 4 files, 450 messages from \d+ source IPs read \(reported by .+\): \d+ sources? failing DMARC$/,
        ),
      },
    ]);
    expect(result.data.formats).toEqual(['dmarcbis', 'rfc7489']);
    expect(result.data.totals).toMatchObject({
      reports: 4,
      records: 10,
      messages: 450,
      dmarc_fail: 270,
      source_ips: 6,
      failing_source_ips: 3,
    });
    expect(rowOf(result.data.rollup, '198.51.100.23')).toEqual({
      source_ip: '198.51.100.23',
      messages: 118,
      dmarc_fail: 118,
      disposition: { none: 115, quarantine: 3, reject: 0, pass: 0 },
      dkim_aligned: { pass: 0, fail: 118 },
      spf_aligned: { pass: 0, fail: 118 },
      header_from: ['good.test', 'news.good.test'],
      reporters: ['google.com', 'Enterprise Outlook'],
      first_seen: '2025-11-23T00:00:00.000Z',
      last_seen: '2025-11-24T00:00:00.000Z',
    });
    expect(rowOf(result.data.rollup, '209.85.220.41')).toMatchObject({
      messages: 159,
      dmarc_fail: 0,
      disposition: { none: 150, pass: 9 },
      reporters: ['google.com', 'Yahoo', 'Sample Reporter'],
    });
    expect(rowOf(result.data.rollup, '2001:db8::25')).toMatchObject({
      messages: 4,
      dmarc_fail: 0,
      dkim_aligned: { pass: 4, fail: 0 },
      spf_aligned: { pass: 0, fail: 4 },
    });
    expect(result.data.reporters.map((reporter) => [reporter.org_name, reporter.messages])).toEqual([
      ['google.com', 199],
      ['Yahoo', 180],
      ['Enterprise Outlook', 60],
      ['Sample Reporter', 11],
    ]);
  });

  it('finds each DMARC-failing IP: high from 100 failing messages, medium below', async () => {
    const result = await rua(['google.xml', 'microsoft.xml', 'yahoo.xml', 'dmarcbis.xml'].map(fixture));

    expect(result.findings.map((item) => [item.evidence.source_ip, item.severity])).toEqual([
      ['203.0.113.9', 'high'],
      ['198.51.100.23', 'high'],
      ['192.0.2.123', 'medium'],
    ]);
    expect(result.findings[0]).toMatchObject({
      rule_id: 'mailscan.dmarc.rua_misalignment',
      evidence: { messages: 150, dmarc_fail: 150, header_from: ['good.test'] },
      evidence_key: 'source_ip=203.0.113.9',
    });
  });

  it("reports another domain's report as an error entry and ignores it", async () => {
    const result = await rua([fixture('other-domain.xml'), fixture('yahoo.xml')]);

    expect(result.data.totals).toMatchObject({ reports: 1, messages: 180 });
    expect(result.errors).toEqual([
      { surface: 'rua', check: 'report', message: 'other-domain.xml: report is for other.example, not good.test; ignored' },
    ]);
    expect(result.checks).toEqual([
      {
        rules: ['mailscan.dmarc.rua_misalignment'],
        outcome: 'error',
        detail: expect.stringMatching(
          /^1 aggregate report from 2 files, 180 messages from \d+ source IPs? read \(reported by [^)]+\): \d+ sources? failing DMARC; not counted: other-domain\.xml: report is for other\.example/,
        ),
      },
    ]);
  });

  it('tolerates missing optional elements, prefixes, whitespace and bad records', async () => {
    const path = write(
      'odd.xml',
      `\uFEFF<?xml version="1.0"?>
<rua:feedback xmlns:rua="http://dmarc.org/dmarc-xml/0.1">
  <rua:report_metadata><rua:org_name>  Odd Org  </rua:org_name></rua:report_metadata>
  <rua:policy_published><rua:domain>Good.Test.</rua:domain></rua:policy_published>
  <rua:record><rua:row><rua:source_ip>192.0.2.1</rua:source_ip><rua:count>5</rua:count><rua:policy_evaluated><rua:disposition>reject</rua:disposition></rua:policy_evaluated></rua:row></rua:record>
  <rua:record><rua:row><rua:source_ip>not-an-ip</rua:source_ip><rua:count>5</rua:count></rua:row></rua:record>
  <rua:record><rua:row><rua:source_ip>192.0.2.1</rua:source_ip><rua:count>2</rua:count><rua:policy_evaluated><rua:dkim>pass</rua:dkim></rua:policy_evaluated></rua:row></rua:record>
</rua:feedback>`,
    );

    const result = await rua([path]);

    expect(rowOf(result.data.rollup, '192.0.2.1')).toMatchObject({
      messages: 7,
      dmarc_fail: 5,
      disposition: { reject: 5, none: 2 },
      reporters: ['Odd Org'],
      header_from: [],
      first_seen: null,
    });
    expect(result.errors).toEqual([
      { surface: 'rua', check: 'record', message: 'odd.xml: 1 records without a valid source_ip or count were skipped' },
    ]);
  });

  it('rolls up a 10,000-record report exactly', async () => {
    const path = write('big.xml.gz', gzipSync(generateReport({ domain: 'good.test', records: 10_000, ips: 300 })));

    const result = await rua([path]);

    expect(result.data.totals).toMatchObject({ reports: 1, records: 10_000, source_ips: 300 });
    let expectedMessages = 0;
    let expectedFail = 0;
    for (let i = 0; i < 10_000; i++) {
      expectedMessages += 1 + (i % 7);
      if (alignmentOf(i % 300).dkim === 'fail' && alignmentOf(i % 300).spf === 'fail') expectedFail += 1 + (i % 7);
    }
    expect(result.data.totals).toMatchObject({ messages: expectedMessages, dmarc_fail: expectedFail, failing_source_ips: 100 });
    expect(rowOf(result.data.rollup, ipOf(0))).toMatchObject({
      messages: expect.any(Number),
      dmarc_fail: rowOf(result.data.rollup, ipOf(0))?.messages,
    });
    expect(result.findings).toHaveLength(100);
  });

  it('refuses what is not a DMARC report, one file at a time', async () => {
    const files = [
      write('plain.txt', 'hello, this is not XML'),
      write('html.xml', '<html><body>nope</body></html>'),
      write('broken.xml', '<feedback><report_metadata>'),
      write('deep.xml', `<feedback>${'<a>'.repeat(100)}${'</a>'.repeat(100)}</feedback>`),
      write('empty.zip', zipOf([])),
      write('nested.zip', zipOf([{ name: 'inner.xml.gz', data: gzipSync('<feedback/>') }])),
      fixture('google.xml'),
    ];

    const result = await rua(files);

    expect(result.status).toBe('ok');
    expect(result.data.totals.reports).toBe(1);
    expect(result.errors.map((error) => error.message)).toEqual([
      'plain.txt: not XML',
      'html.xml: not a DMARC aggregate report (no <feedback> root)',
      expect.stringMatching(/^broken\.xml: (malformed XML|report has no policy_published\/domain)/),
      `deep.xml: XML nests deeper than ${RUA_LIMITS.maxXmlDepth} elements`,
      'empty.zip: archive holds no file',
      'nested.zip: entry inner.xml.gz: nested archives are refused',
    ]);
  });

  it('refuses a DTD before any entity can expand', async () => {
    const laughs = write(
      'laughs.xml',
      `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<feedback><policy_published><domain>&lol2;</domain></policy_published></feedback>`,
    );

    const result = await rua([laughs]);

    expect(result.status).toBe('error');
    expect(result.errors).toEqual([
      { surface: 'rua', check: 'report', message: 'laughs.xml: XML with a DTD or entity declarations is refused' },
    ]);
  });

  it('keeps the files that parse when one is missing', async () => {
    const result = await rua([join(work, 'absent.xml'), fixture('google.xml')]);

    expect(result.data.totals.reports).toBe(1);
    expect(result.errors).toEqual([expect.objectContaining({ check: 'file', message: expect.stringMatching(/^absent\.xml: ENOENT/) })]);
  });

  it('adds nothing from a zip whose later entry crosses a bound, though its first entry parsed', async () => {
    const good = gzipSync(generateReport({ domain: 'good.test', records: 10, ips: 10 }));

    const file = write(
      'late-bomb.zip',
      zipOf([
        { name: 'report.xml', data: Buffer.from(generateReport({ domain: 'good.test', records: 10, ips: 10 })) },
        { name: 'bomb.xml', deflated: deflatedZeros(80) },
      ]),
    );

    const result = await rua([file, write('fine.xml.gz', good)]);

    expect(result.data.totals).toMatchObject({ reports: 1, records: 10 });
    expect(result.data.files).toEqual([
      { file: 'late-bomb.zip', reports: 0, records: 0, error: `decompresses to more than ${RUA_LIMITS.maxDecompressedBytes} bytes` },
      { file: 'fine.xml.gz', reports: 1, records: 10 },
    ]);
    expect(result.errors).toEqual([
      { surface: 'rua', check: 'file', message: `late-bomb.zip: decompresses to more than ${RUA_LIMITS.maxDecompressedBytes} bytes` },
    ]);
  });

  it('stops reading a file at the scan deadline, between two chunks', async () => {
    const bytes = gzipSync(generateReport({ domain: 'good.test', records: 20_000, ips: 100 }));
    const deadline = new AbortController();
    let chunksRead = 0;

    const reading = readReportFile(
      'big.xml.gz',
      bytes,
      RUA_LIMITS,
      async (document) => {
        for await (const chunk of document.chunks) {
          expect(chunk.length).toBeGreaterThan(0);
          chunksRead += 1;
          if (chunksRead === 3) deadline.abort();
        }
      },
      deadline.signal,
    );

    await expect(reading).rejects.toThrow('the scan deadline was reached before the file was read to its end');
    expect(chunksRead).toBe(3);
  });

  it('reads no file once the scan deadline has passed, and says so for each', async () => {
    const result = await runRua({
      domain: 'good.test',
      files: [fixture('google.xml'), fixture('yahoo.xml')],
      deadline: AbortSignal.abort(),
    });

    expect(result.status).toBe('error');
    expect(result.errors.map((error) => error.message)).toEqual([
      'google.xml: not read: the scan deadline was reached first',
      'yahoo.xml: not read: the scan deadline was reached first',
    ]);
  });
});
