import type { Logger } from '../../ports/logger.ts';
import { METRICS, METRICS_NAMESPACE, METRICS_SERVICE, type Metrics } from '../../ports/metrics.ts';

/**
 * The same metrics as the EMF adapter, as structured log lines (`npm start`, where there is no
 * CloudWatch): `{"message":"metric","metric":"ScansFinished","value":1,"unit":"Count",
 * "dimensions":{"service":"scan-service","environment":"local","status":"succeeded"}}`.
 */
export function makeLogMetrics({ logger, environment }: { logger: Logger; environment: string }): Metrics {
  return {
    record(name, value, dimensions) {
      logger.info('metric', {
        namespace: METRICS_NAMESPACE,
        metric: name,
        value,
        unit: METRICS[name].unit,
        dimensions: { service: METRICS_SERVICE, environment, ...dimensions },
      });
    },
  };
}
