/**
 * The service's metrics (DESIGN §10), one definition for the code that records them and for the
 * dashboard and alarms that read them (infra/constructs/observability.ts). Dimensions stay few
 * and low-cardinality on purpose: never a tenant, a target or an id.
 */
export const METRICS = {
  /** A job went from queued to running. */
  ScansStarted: { unit: 'Count', dimensions: ['scan_type'] },
  /** A job reached a final status (succeeded, partial, failed), including jobs failed from the DLQ. */
  ScansFinished: { unit: 'Count', dimensions: ['status'] },
  /** Wall time from started_at to finished_at of a job that ran. */
  ScanDuration: { unit: 'Milliseconds', dimensions: ['scan_type'] },
  /** Findings stored, by severity. */
  Findings: { unit: 'Count', dimensions: ['severity'] },
  /** Fires for a deleted or disabled schedule, dropped by the dispatcher. */
  FiresDropped: { unit: 'Count', dimensions: [] },
  /** Queue records the dispatcher could not handle (redelivered, then dead-lettered). */
  DispatchFailures: { unit: 'Count', dimensions: [] },
} as const;

export type MetricName = keyof typeof METRICS;
export type MetricDimensions<N extends MetricName> = Record<(typeof METRICS)[N]['dimensions'][number], string>;

/** CloudWatch namespace of the service's own metrics. */
export const METRICS_NAMESPACE = 'ScanService';
/** The `service` dimension every function records under, so one alarm sees all of them. */
export const METRICS_SERVICE = 'scan-service';

/** Records one value of one metric. Adapters: CloudWatch EMF in AWS, the structured log locally. */
export interface Metrics {
  record<N extends MetricName>(name: N, value: number, dimensions: MetricDimensions<N>): void;
}

export const noMetrics: Metrics = { record: () => {} };
