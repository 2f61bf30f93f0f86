import { describe, expect, it } from 'vitest';
import { emptySummary, scanToWire, type ScanJob } from '../../shared/domain/scan-job.ts';
import { describeSeries, positionOf, scorePoints, segments } from '../../web/src/score-series.ts';
import { scanJobRecord } from '../contracts/scan-repository-contract.ts';

/** Scan `n` of one target, created on day `n`, with `status` and, when given, a posture score. */
function scan(n: number, status: ScanJob['status'], score?: number): ScanJob {
  return scanToWire(
    scanJobRecord('acme', n, {
      status,
      created_at: `2026-03-0${n}T10:00:00.000Z`,
      summary: { ...emptySummary(), ...(score === undefined ? {} : { score, grade: 'C' }) },
    }),
  );
}

describe('the posture score series', () => {
  it('keeps finished scans oldest first, with a null score where a scan has none, never a zero', () => {
    const points = scorePoints([
      scan(4, 'succeeded', 80),
      scan(2, 'failed'),
      scan(5, 'running'),
      scan(1, 'succeeded', 0),
      scan(3, 'partial'),
    ]);
    expect(points.map((point) => [Number(point.scanId.slice(-2)), point.score])).toEqual([
      [1, 0],
      [2, null],
      [3, null],
      [4, 80],
    ]);
  });

  it('breaks the line at every scan without a score', () => {
    const points = scorePoints([scan(1, 'succeeded', 50), scan(2, 'succeeded', 60), scan(3, 'failed'), scan(4, 'succeeded', 70)]);
    expect(segments(points).map((run) => run.map((point) => point.score))).toEqual([[50, 60], [70]]);
    expect(segments(scorePoints([scan(1, 'failed')]))).toEqual([]);
  });

  it('spaces points evenly and puts a single one in the middle', () => {
    expect([0, 1, 2].map((index) => positionOf(index, 3))).toEqual([0, 0.5, 1]);
    expect(positionOf(0, 1)).toBe(0.5);
  });

  it('says the series in words, counting the scans without a score', () => {
    expect(describeSeries(scorePoints([scan(1, 'succeeded', 40), scan(2, 'failed'), scan(3, 'succeeded', 30)]))).toBe(
      '3 finished scans. Latest score 30 (grade C), down from 40; lowest 30, highest 40. 1 scan has no score (the posture check did not complete).',
    );
    expect(describeSeries(scorePoints([scan(1, 'failed')]))).toBe(
      'The one finished scan has no score (the posture check did not complete).',
    );
  });
});
