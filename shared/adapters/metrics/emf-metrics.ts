import { Metrics as PowertoolsMetrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS, METRICS_NAMESPACE, METRICS_SERVICE, type Metrics } from '../../ports/metrics.ts';

const UNITS = { Count: MetricUnit.Count, Milliseconds: MetricUnit.Milliseconds } as const;

/**
 * Metrics as CloudWatch embedded metric format (Powertools Metrics): each value is one EMF log
 * line, published at once with its own dimensions (`singleMetric`), so nothing waits for a flush
 * at the end of an invocation that may time out. Every line carries `service` and `environment`.
 */
export function makeEmfMetrics({ environment }: { environment: string }): Metrics {
  const metrics = new PowertoolsMetrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE, defaultDimensions: { environment } });
  return {
    record(name, value, dimensions) {
      const single = metrics.singleMetric();
      for (const [dimension, dimensionValue] of Object.entries<string>(dimensions)) single.addDimension(dimension, dimensionValue);
      single.addMetric(name, UNITS[METRICS[name].unit], value);
    },
  };
}
