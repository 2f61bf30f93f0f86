import { useQuery } from '@tanstack/react-query';
import type { ScanJob, ScanLogLocation } from '../../../shared/domain/scan-job.ts';
import { ScanLogView, type ScanLogLine } from '../../../shared/domain/scan-log.ts';
import { scanTypes, type ScanType } from '../../../shared/domain/scan-types.ts';
import { api } from '../api.ts';
import { ErrorState, Loading } from '../components.tsx';

function fieldText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A log field as a reader says it (issue 41 item 4): `scan_type=ssl` reads "scan type=SSL/TLS",
 * `timeout_ms=289987` "time limit=290 s"; any other name with spaces for underscores.
 */
export function logField(key: string, value: unknown): [string, string] {
  if (key === 'scan_type' && typeof value === 'string' && value in scanTypes) return ['scan type', scanTypes[value as ScanType].label];
  if (key === 'timeout_ms' && typeof value === 'number') return ['time limit', `${Math.round(value / 1000)} s`];
  if (key === 'time_limit_seconds' && typeof value === 'number') return ['time limit', `${value} s`];
  return [key.replace(/_/g, ' '), fieldText(value)];
}

function Line({ line }: { line: ScanLogLine }) {
  const fields = Object.entries(line.fields);
  return (
    <li className={`log-line log-${line.level.toLowerCase()}`}>
      <time dateTime={line.timestamp}>{line.timestamp.slice(11, 19)}</time> <span className="log-level">{line.level}</span>{' '}
      <span className="log-message">{line.message}</span>
      {fields.length > 0 && (
        <span className="log-fields">
          {fields.map(([key, value]) => {
            const [name, text] = logField(key, value);
            return (
              <span key={key}>
                {' '}
                <span className="muted">{name}=</span>
                {text}
              </span>
            );
          })}
        </span>
      )}
    </li>
  );
}

/** Where the lines are when the API cannot read them back: CloudWatch Logs Insights with the scan's query. */
function InsightsLink({ location }: { location: ScanLogLocation }) {
  if ('file' in location) return <p className="muted">This deployment does not serve the log lines.</p>;
  const href = `https://console.aws.amazon.com/cloudwatch/home#logsV2:logs-insights$3FqueryDetail$3D~(source~(~'${encodeURIComponent(location.log_group)})~editorString~'${encodeURIComponent(location.insights_query)})`;
  return (
    <p className="log">
      <a href={href} target="_blank" rel="noreferrer">
        {location.log_group} in CloudWatch Logs Insights
      </a>
    </p>
  );
}

/** The scan's own log lines (GET /api/scans/{id}/log/), refreshed while it runs. */
export function ScanLog({ job }: { job: ScanJob }) {
  const running = job.status === 'queued' || job.status === 'running';
  const log = useQuery({
    queryKey: ['scan-log', job.id, job.status],
    queryFn: () => api(`/api/scans/${encodeURIComponent(job.id)}/log/`, ScanLogView),
    refetchInterval: running ? 2_000 : false,
  });
  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title" className="section-title">
        Log
      </h2>
      {log.isPending ? (
        <Loading label="Loading the log…" />
      ) : log.isError ? (
        <ErrorState error={log.error} retry={() => void log.refetch()} />
      ) : !log.data.readable ? (
        <InsightsLink location={log.data.location} />
      ) : log.data.items.length === 0 ? (
        <p className="muted">{running ? 'Nothing logged yet.' : 'This scan logged nothing.'}</p>
      ) : (
        <>
          {/* Long lines scroll inside the box; focusable so a keyboard can scroll it too. */}
          <ol className="log-lines" tabIndex={0} aria-label="Log lines">
            {log.data.items.map((line, index) => (
              <Line key={index} line={line} />
            ))}
          </ol>
          {log.data.truncated && <p className="muted">The first {log.data.items.length} lines are shown; the log goes on.</p>}
        </>
      )}
    </section>
  );
}
