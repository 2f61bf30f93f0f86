import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE, METRICS_SERVICE, type MetricDimensions, type MetricName } from '../../shared/ports/metrics.ts';

/**
 * The CloudWatch side of shared/ports/metrics.ts: the EMF metrics the functions record, with the
 * exact dimension sets they record them under (`service`, `environment`, then the metric's own).
 */
export class ServiceMetrics {
  constructor(private readonly environment: string) {}

  metric<N extends MetricName>(
    name: N,
    dimensions: MetricDimensions<N>,
    options: { statistic?: string; period?: Duration; label?: string } = {},
  ): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: { service: METRICS_SERVICE, environment: this.environment, ...dimensions },
      statistic: options.statistic ?? Stats.SUM,
      period: options.period ?? Duration.minutes(5),
      label: options.label,
    });
  }

  /** Every dimension value of a metric with one dimension of its own (a dashboard line per value). */
  search(name: MetricName, dimension: string, statistic: string, label: string): MathExpression {
    return new MathExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},${dimension},environment,service} MetricName="${name}" environment="${this.environment}" service="${METRICS_SERVICE}"', '${statistic}', 300)`,
      label,
      usingMetrics: {},
      period: Duration.minutes(5),
    });
  }

  /**
   * Percentage of finished scans that failed over `period`, 0 while fewer than `minimum` scans
   * finished (one failure out of one scan is not a trend).
   */
  scanFailureRatio(period: Duration, minimum: number): MathExpression {
    const finished = (status: string) => this.metric('ScansFinished', { status }, { period });
    return new MathExpression({
      expression: `IF(total >= ${minimum}, 100 * failed / total, 0)`,
      usingMetrics: {
        failed: new MathExpression({ expression: 'FILL(f, 0)', usingMetrics: { f: finished('failed') }, period }),
        total: new MathExpression({
          expression: 'FILL(s, 0) + FILL(p, 0) + FILL(f2, 0)',
          usingMetrics: { s: finished('succeeded'), p: finished('partial'), f2: finished('failed') },
          period,
        }),
      },
      label: 'failed scans (%)',
      period,
    });
  }
}
