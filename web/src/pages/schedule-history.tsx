import { scanTypes } from '../../../shared/domain/scan-types.ts';
import type { ScanListItem } from '../../../shared/domain/scan-job.ts';
import { ApiError } from '../api.ts';
import { cadenceInWords, formatDistinct, formatLocal } from '../cadence.ts';
import { Breadcrumb, EmptyState, ErrorState, Loading, LoadMore, NotFoundPage, StatusBadge, type Parent } from '../components.tsx';
import { displayTarget } from '../idn.ts';
import { useScans, useSchedule, useTargetScans } from '../queries.ts';
import { Link } from '../router.tsx';
import { ScoreChart } from '../score-chart.tsx';
import { scorePoints } from '../score-series.ts';
import { ScopeSummary } from '../scope-form.tsx';

const SCHEDULES: Parent = { to: '/settings/scheduled-scans', label: 'Scheduled Scans' };
const STARTED_BY = { manual: 'Manual', cron: 'Schedule', run_now: 'Run now', adversary: 'Adversary step' } as const;
const CHANGE_COLUMNS = [
  ['new', 'New'],
  ['resolved', 'Resolved'],
  ['reopened', 'Reopened'],
  ['unchanged', 'Unchanged'],
] as const;

/**
 * One schedule's run history (DESIGN §15): its scans newest first (`GET /api/scans/?schedule_id=`,
 * an index query), each with its status and what it changed; an email_security schedule also
 * shows its target's mail posture score over its last 100 scans (`?target=`, another index query).
 */
export function ScheduleHistoryPage({ id }: { id: string }) {
  const schedule = useSchedule(id);
  const runs = useScans({ schedule_id: id });
  const posture = schedule.data?.scan_type === 'email_security';
  const history = useTargetScans('email_security', schedule.data?.target ?? '', posture);
  if (schedule.isPending) return <Loading label="Loading the schedule…" />;
  if (schedule.isError) {
    if (schedule.error instanceof ApiError && schedule.error.status === 404) return <ScheduleNotFound id={id} />;
    return <ErrorState error={schedule.error} retry={() => void schedule.refetch()} />;
  }
  const row = schedule.data;
  const items = runs.data?.pages.flatMap((page) => page.items) ?? [];
  const points = scorePoints(history.data ?? []);
  const target = displayTarget(row.target);

  return (
    <section className="page">
      <Breadcrumb parent={SCHEDULES}>{row.name}</Breadcrumb>
      <h1>Run history of {row.name}</h1>
      <dl className="facts">
        <div>
          <dt>Scan type</dt>
          <dd>{scanTypes[row.scan_type].label}</dd>
        </div>
        <div>
          <dt>Target</dt>
          <dd className="mono" title={target === row.target ? undefined : `${row.target} (as stored and scanned)`}>
            {target}
          </dd>
        </div>
        <div>
          <dt>Options</dt>
          <dd>
            <ScopeSummary scope={row.scope} scanType={row.scan_type} />
          </dd>
        </div>
        <div>
          <dt>Cadence</dt>
          <dd>{cadenceInWords(row)}</dd>
        </div>
        <div>
          <dt>Next run</dt>
          <dd>{row.enabled ? formatLocal(row.next_run_at) : 'Paused'}</dd>
        </div>
      </dl>
      {posture && points.length > 0 && (
        <ScoreChart
          title={`Mail posture score of ${target}`}
          subtitle="Every email security scan of this target (the newest 100), by this schedule or started any other way."
          points={points}
        />
      )}
      {runs.isPending ? (
        <Loading label="Loading runs…" />
      ) : runs.isError ? (
        <ErrorState error={runs.error} retry={() => void runs.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title="This schedule has not run yet">
          <p className="muted">{row.enabled ? `Its next run is ${formatLocal(row.next_run_at)}.` : 'It is paused.'}</p>
        </EmptyState>
      ) : (
        <>
          <RunTable runs={items} posture={posture} scope={row.scope} />
          <LoadMore query={runs} label="Load older runs" />
        </>
      )}
    </section>
  );
}

/** Each run on one row: when, how it started, its status, score, findings, and what it changed. */
function RunTable({ runs, posture, scope }: { runs: ScanListItem[]; posture: boolean; scope: Record<string, unknown> }) {
  // Runs that share a minute (Run now pressed twice) are told apart to the second.
  const times = formatDistinct(runs.map((run) => run.created_at));
  return (
    <section aria-labelledby="runs-title" className="runs">
      <h2 id="runs-title" className="section-title">
        Runs
      </h2>
      <p className="muted">
        {runs.length} {runs.length === 1 ? 'run' : 'runs'}, newest first. New, Resolved, Reopened and Unchanged count the issues each run
        changed.
      </p>
      <div className="table-wrap">
        <table className="table runs-table">
          <caption className="visually-hidden">Runs of this schedule, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Started by</th>
              <th scope="col">Status</th>
              {posture && <th scope="col">Score</th>}
              <th scope="col">Findings</th>
              {CHANGE_COLUMNS.map(([key, label]) => (
                <th key={key} scope="col" className="cell-number">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {runs.map((run, index) => (
              <tr key={run.id}>
                <th scope="row">
                  <Link to={`/scans/${run.id}`} title={formatLocal(run.created_at)}>
                    {times[index]}
                  </Link>
                  {/* A run before an edit of the schedule's options says which it ran with. */}
                  {JSON.stringify(run.scope ?? {}) !== JSON.stringify(scope) && (
                    <>
                      {' '}
                      <ScopeSummary scope={run.scope} scanType={run.scan_type} inRow />
                    </>
                  )}
                </th>
                <td data-label="Started by">{STARTED_BY[run.trigger]}</td>
                <td data-label="Status">
                  <StatusBadge status={run.status} />
                </td>
                {posture && <td data-label="Score">{run.summary.score ?? <span className="muted">No score</span>}</td>}
                <td data-label="Findings">{run.status === 'queued' || run.status === 'running' ? '—' : run.finding_count}</td>
                {CHANGE_COLUMNS.map(([key, label]) => (
                  <td key={key} data-label={label} className="cell-number">
                    {run.changes ? run.changes[key] : <span title="Not counted: the scan has not finished, or it failed">—</span>}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function ScheduleNotFound({ id }: { id: string }) {
  return (
    <NotFoundPage id={id} parent={SCHEDULES} title="Schedule not found">
      <p>
        There is no schedule <code>{id}</code> in this tenant. It may have been deleted, or it belongs to another tenant. Its scans stay on
        the <Link to={`/scans?schedule_id=${encodeURIComponent(id)}`}>Scans</Link> page.
      </p>
    </NotFoundPage>
  );
}
