import { FINISHED_STATUSES, type ScanJob, type ScanListItem } from '../../shared/domain/scan-job.ts';

/** One finished scan on the posture chart: `score` null when the scan produced none (a gap, never 0). */
export interface ScorePoint {
  scanId: string;
  /** When the scan was created (a fire's time for a scheduled run), ISO. */
  at: string;
  score: number | null;
  grade: string | null;
  status: ScanJob['status'];
}

/** Finished scans, oldest first, with their score: queued and running scans have no result yet. */
export function scorePoints(scans: readonly Pick<ScanListItem, 'id' | 'status' | 'created_at' | 'summary'>[]): ScorePoint[] {
  return scans
    .filter((scan) => FINISHED_STATUSES.includes(scan.status))
    .map((scan) => ({
      scanId: scan.id,
      at: scan.created_at,
      score: scan.summary.score ?? null,
      grade: scan.summary.grade ?? null,
      status: scan.status,
    }))
    .sort((a, b) => a.at.localeCompare(b.at) || a.scanId.localeCompare(b.scanId));
}

/**
 * The runs of consecutive scored points, each drawn as one line: a scan without a score ends a
 * segment, so the line breaks there instead of dropping to zero or joining across the gap.
 */
export function segments(points: readonly ScorePoint[]): ScorePoint[][] {
  const runs: ScorePoint[][] = [];
  let current: ScorePoint[] = [];
  for (const point of points) {
    if (point.score === null) {
      if (current.length > 0) runs.push(current);
      current = [];
    } else current.push(point);
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/**
 * Where each point sits across the plot, 0..1 by index: a scheduled series is evenly spaced in
 * time anyway, and a burst of Run now scans would otherwise pile up on one pixel. One point sits
 * in the middle.
 */
export function positionOf(index: number, count: number): number {
  return count <= 1 ? 0.5 : index / (count - 1);
}

/** What the chart says in words: its text alternative, read before the points. */
export function describeSeries(points: readonly ScorePoint[]): string {
  const scored = points.filter((point) => point.score !== null) as Array<ScorePoint & { score: number }>;
  const gaps = points.length - scored.length;
  const gapText = gaps === 0 ? '' : ` ${gaps} ${gaps === 1 ? 'scan has' : 'scans have'} no score (the posture check did not complete).`;
  if (scored.length === 0)
    return `${points.length === 1 ? 'The one finished scan has no score' : `None of the ${points.length} finished scans has a score`} (the posture check did not complete).`;
  const latest = scored[scored.length - 1];
  const scores = scored.map((point) => point.score);
  const first = scored[0].score;
  const trend =
    scored.length < 2
      ? ''
      : latest.score > first
        ? ', up from ' + first
        : latest.score < first
          ? ', down from ' + first
          : ', unchanged from ' + first;
  return (
    `${points.length} finished ${points.length === 1 ? 'scan' : 'scans'}. ` +
    `Latest score ${latest.score}${latest.grade ? ` (grade ${latest.grade})` : ''}${trend}; ` +
    `lowest ${Math.min(...scores)}, highest ${Math.max(...scores)}.${gapText}`
  );
}
