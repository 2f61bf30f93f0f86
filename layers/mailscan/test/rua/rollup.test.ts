import { describe, expect, it } from 'vitest';
import type { RuaRecord } from '../../src/rua/parse-report.ts';
import { RecordBatch } from '../../src/rua/record-batch.ts';
import { RuaRollup, type RollupRow } from '../../src/rua/rollup.ts';

const DISPOSITIONS = ['none', 'quarantine', 'reject', 'pass'] as const;

/** Three reports of 2,000 records over ~1,900 IPs, counts and verdicts spread by a fixed sequence. */
function generatedReports(): RuaRecord[][] {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed >> 16) % n;
  };
  return Array.from({ length: 3 }, () =>
    Array.from({ length: 2000 }, () => ({
      sourceIp: `10.0.${next(8)}.${next(256)}`,
      count: next(5),
      disposition: DISPOSITIONS[next(4)],
      dkim: next(2) ? 'pass' : 'fail',
      spf: next(3) ? 'pass' : 'fail',
      headerFrom: 'x.test',
    })),
  );
}

function rollupOf(reports: RuaRecord[][]): RuaRollup {
  const rollup = new RuaRollup(20);
  reports.forEach((list, index) => {
    const records = new RecordBatch();
    for (const record of list) records.push(record);
    rollup.add({
      format: 'rfc7489',
      orgName: `reporter-${index}`,
      email: null,
      reportId: null,
      begin: 1763856000,
      end: 1763942399,
      domain: 'x.test',
      policy: 'none',
      records,
      skippedRecords: 0,
    });
  });
  return rollup;
}

const fullOrder = (rows: RollupRow[]) =>
  [...rows].sort((a, b) => b.dmarc_fail - a.dmarc_fail || b.messages - a.messages || a.source_ip.localeCompare(b.source_ip));

describe('rua rollup', () => {
  it('keeps the rows a full sort would put first, in its order', () => {
    const rollup = rollupOf(generatedReports());
    const all = rollup.result(rollup.ips).rows;

    expect(all).toHaveLength(rollup.ips);
    expect(all).toEqual(fullOrder(all));
    for (const limit of [0, 1, 7, 500]) expect(rollup.result(limit).rows).toEqual(all.slice(0, limit));
  });

  it('counts each disposition and alignment result per IP, fails and none included', () => {
    const reports = generatedReports();
    const expected = new Map<string, Pick<RollupRow, 'messages' | 'dmarc_fail' | 'disposition' | 'dkim_aligned' | 'spf_aligned'>>();
    for (const record of reports.flat()) {
      const row = expected.get(record.sourceIp) ?? {
        messages: 0,
        dmarc_fail: 0,
        disposition: { none: 0, quarantine: 0, reject: 0, pass: 0 },
        dkim_aligned: { pass: 0, fail: 0 },
        spf_aligned: { pass: 0, fail: 0 },
      };
      row.messages += record.count;
      row.disposition[record.disposition] += record.count;
      row.dkim_aligned[record.dkim] += record.count;
      row.spf_aligned[record.spf] += record.count;
      if (record.dkim === 'fail' && record.spf === 'fail') row.dmarc_fail += record.count;
      expected.set(record.sourceIp, row);
    }

    const rows = rollupOf(reports).result(10_000).rows;

    expect(rows).toHaveLength(expected.size);
    for (const row of rows) expect(row).toMatchObject(expected.get(row.source_ip) ?? {});
  });
});
