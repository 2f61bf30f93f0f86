import type { ScanJob } from '../../../shared/domain/scan-job.ts';

/** CloudWatch in AWS (a Logs Insights query), a file under .data/logs/scans/ locally. */
export function ScanLog({ job }: { job: ScanJob }) {
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
