import type { ScanJob } from '../../../shared/domain/scan-job.ts';
import { displayTarget } from '../idn.ts';
import { useTargetScans } from '../queries.ts';
import { ScoreChart } from '../score-chart.tsx';
import { scorePoints } from '../score-series.ts';

/**
 * An email_security scan's target over time: the mail posture score of its newest 100 scans, this
 * one marked. Drawn once there are two finished scans, one of them scored (one point is not a
 * trend, and a row of gaps says nothing the page does not); nothing while they load or when the
 * listing fails, since the scan's own page must not depend on it.
 */
export function TargetPosture({ job }: { job: ScanJob }) {
  const posture = job.scan_type === 'email_security';
  const history = useTargetScans('email_security', job.target, posture);
  const points = scorePoints(history.data ?? []);
  if (!posture || points.length < 2 || points.every((point) => point.score === null)) return null;
  return (
    <ScoreChart
      title={`Mail posture score of ${displayTarget(job.target)} over time`}
      subtitle="Every email security scan of this target (the newest 100); this scan is ringed."
      points={points}
      current={job.id}
    />
  );
}
