import { SEVERITIES, type ScanJob } from '../../../shared/domain/scan-job.ts';
import { scanTypes } from '../../../shared/domain/scan-types.ts';
import { formatLocal } from '../cadence.ts';
import { ErrorState, Loading, SeverityBadge, StatusBadge } from '../components.tsx';
import { useScan } from '../queries.ts';
import { Link } from '../router.tsx';
import { FindingList } from './findings.tsx';

/** One scan: status (refreshing while queued or running), summary, errors, log, findings. */
export function ScanPage({ id }: { id: string }) {
  const scan = useScan(id);
  if (scan.isPending) return <Loading label="Loading the scan…" />;
  if (scan.isError) return <ErrorState error={scan.error} retry={() => void scan.refetch()} />;
  const job = scan.data;
  const finished = job.status !== 'queued' && job.status !== 'running';
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link to="/scans">Scans</Link> / {job.id}
      </p>
      <div className="page-head">
        <h1>
          {scanTypes[job.scan_type].label} scan of <span className="mono">{job.target}</span>
        </h1>
        <div role="status" aria-live="polite" aria-label="Scan status">
          <StatusBadge status={job.status} />
        </div>
      </div>
      <dl className="facts">
        <div>
          <dt>Created</dt>
          <dd>{formatLocal(job.created_at)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatLocal(job.started_at)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{formatLocal(job.finished_at)}</dd>
        </div>
        <div>
          <dt>Started by</dt>
          <dd>
            {job.schedule_id ? (
              <Link to={`/scans?schedule_id=${job.schedule_id}`}>{job.trigger === 'cron' ? 'Schedule' : 'Run now'}</Link>
            ) : (
              'Manual'
            )}
          </dd>
        </div>
      </dl>
      <Summary job={job} />
      {job.errors.length > 0 && (
        <section className="card card-danger" aria-labelledby="errors-title">
          <h2 id="errors-title" className="section-title">
            Errors
          </h2>
          <ul className="errors">
            {job.errors.map((error, index) => (
              <li key={index}>
                <strong>{error.runner}</strong>: {error.message}
              </li>
            ))}
          </ul>
        </section>
      )}
      <LogLocation job={job} />
      <section aria-labelledby="findings-title">
        <h2 id="findings-title" className="section-title">
          Findings
        </h2>
        {finished ? <FindingList filters={{ scan_id: job.id }} /> : <p className="muted">Findings appear when the scan has finished.</p>}
      </section>
    </section>
  );
}

function Summary({ job }: { job: ScanJob }) {
  const { summary } = job;
  return (
    <section className="summary" aria-label="Summary">
      {summary.grade !== undefined && (
        // The score and grade rate the domain's mail posture (SPF, DKIM, DMARC; SPEC §2.5), not the
        // findings below, which may be high while the posture is an A: the label says which.
        <div className="score">
          <span className="score-grade" aria-label={`Mail posture grade ${summary.grade}`}>
            {summary.grade}
          </span>
          {summary.score !== undefined && <span className="score-value">Mail posture {summary.score}/100</span>}
        </div>
      )}
      <ul className="counts">
        {SEVERITIES.map((severity) => (
          <li key={severity}>
            <SeverityBadge severity={severity} /> <span className="count">{summary[severity]}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** CloudWatch in AWS (a Logs Insights query), a file under .data/logs/scans/ locally. */
function LogLocation({ job }: { job: ScanJob }) {
  const log = job.log;
  if ('file' in log) {
    return (
      <p className="log">
        Log: <code>{log.file}</code>
      </p>
    );
  }
  const href = `https://console.aws.amazon.com/cloudwatch/home#logsV2:logs-insights$3FqueryDetail$3D~(source~(~'${encodeURIComponent(log.log_group)})~editorString~'${encodeURIComponent(log.insights_query)})`;
  return (
    <p className="log">
      Log:{' '}
      <a href={href} target="_blank" rel="noreferrer">
        {log.log_group} in CloudWatch Logs Insights
      </a>
    </p>
  );
}
