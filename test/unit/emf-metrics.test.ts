import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeEmfMetrics } from '../../shared/adapters/metrics/emf-metrics.ts';

/** The EMF lines Powertools writes while `act` runs. */
function emfLinesOf(act: () => void): Array<Record<string, any>> {
  const written: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    written.push(args.map(String).join(' '));
  });
  try {
    act();
  } finally {
    write.mockRestore();
    log.mockRestore();
  }
  return written
    .flatMap((text) => text.split('\n'))
    .filter((text) => text.includes('_aws'))
    .map((text) => JSON.parse(text));
}

describe('EMF metrics (Powertools Metrics)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('publishes each value at once as one EMF line with service, environment and its own dimension', () => {
    const metrics = makeEmfMetrics({ environment: 'prod' });

    const lines = emfLinesOf(() => {
      metrics.record('ScansFinished', 1, { status: 'failed' });
      metrics.record('ScanDuration', 1234, { scan_type: 'email_security' });
    });

    expect(lines).toHaveLength(2);
    expect(lines[0]._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'ScanService',
        Dimensions: [expect.arrayContaining(['service', 'environment', 'status'])],
        Metrics: [{ Name: 'ScansFinished', Unit: 'Count' }],
      },
    ]);
    expect(lines[0]).toMatchObject({ service: 'scan-service', environment: 'prod', status: 'failed', ScansFinished: 1 });
    expect(lines[0]._aws.CloudWatchMetrics[0].Dimensions[0]).toHaveLength(3);
    expect(lines[1]._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'ScanDuration', Unit: 'Milliseconds' }]);
    expect(lines[1]).toMatchObject({ scan_type: 'email_security', ScanDuration: 1234 });
    expect(lines[1].status).toBeUndefined();
  });
});
