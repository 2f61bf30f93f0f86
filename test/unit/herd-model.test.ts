import { describe, expect, it } from 'vitest';
import { samplerFrom, seededRandom, simulateHerd, type HerdSettings } from '../../bench/herd/herd-model.ts';

const base: HerdSettings = {
  maxConcurrency: 2,
  accountConcurrency: 1000,
  scaleUpPerMinute: 300,
  functionTimeoutS: 300,
  memoryMb: 1024,
  visibilityTimeoutS: 1800,
  maxReceiveCount: 5,
  retentionS: 4 * 86_400,
  schedulerInvocationTps: 1e9,
  schedulerMaxEventAgeS: 3600,
  flexibleWindowS: 0,
};
const constant = (seconds: number) => () => seconds;
const random = () => seededRandom(7);

describe('the herd model', () => {
  it('drains N one-second scans on C invocations in N / C seconds, oldest first', () => {
    const result = simulateHerd(10, base, constant(1), random());

    expect(result.succeeded).toBe(10);
    expect(result.drainS).toBeCloseTo(5, 6);
    expect(result.queueAgeP50S).toBeCloseTo(2, 6);
    expect(result.queueAgeP99S).toBeCloseTo(4, 6);
    expect(result.peakConcurrency).toBe(2);
    expect(result.lambdaSeconds).toBeCloseTo(10, 6);
    expect(result.gbSeconds).toBeCloseTo(10, 6);
  });

  it('sends fires to the scheduler DLQ once the invocation throttle delays them past their maximum age', () => {
    const result = simulateHerd(10, { ...base, schedulerInvocationTps: 1, schedulerMaxEventAgeS: 4 }, constant(0.1), random());

    expect(result.schedulerDeadLetters).toBe(5);
    expect(result.succeeded).toBe(5);
  });

  it('dead-letters a scan that times out on every one of its receives, after maxReceiveCount receives', () => {
    const settings = { ...base, maxConcurrency: 4, maxReceiveCount: 3, functionTimeoutS: 10, visibilityTimeoutS: 60 };
    const result = simulateHerd(4, settings, constant(11), random());

    expect(result.scanDeadLetters).toBe(4);
    expect(result.timedOut).toBe(12);
    expect(result.lambdaSeconds).toBeCloseTo(120, 6);
    expect(result.succeeded).toBe(0);
    // The last receive starts at 2 × 60 s, the move to the DLQ happens at the fourth, at 3 × 60 s.
    expect(result.drainS).toBeCloseTo(180, 6);
  });

  it('spends receives on throttled invocations when the event source may run more than the account gives', () => {
    const result = simulateHerd(50, { ...base, maxConcurrency: 4, accountConcurrency: 1, visibilityTimeoutS: 30 }, constant(1), random());

    expect(result.throttledReceives).toBeGreaterThan(0);
    expect(result.peakConcurrency).toBe(1);
    expect(result.succeeded + result.scanDeadLetters).toBe(50);
  });

  it('ramps the event source up from five invocations by scaleUpPerMinute', () => {
    const result = simulateHerd(2_000, { ...base, maxConcurrency: 1000, scaleUpPerMinute: 100 }, constant(30), random());

    // 5 at first; 105 after one minute, 205 after two: 2,000 scans of 30 s need several steps.
    expect(result.peakConcurrency).toBeGreaterThan(5);
    expect(result.peakConcurrency).toBeLessThan(1000);
    expect(result.peakConcurrency % 100).toBe(5);
    expect(result.succeeded).toBe(2_000);
  });

  it('deletes messages older than the retention period instead of running them', () => {
    const result = simulateHerd(10, { ...base, maxConcurrency: 2, retentionS: 2.5 }, constant(1), random());

    expect(result.succeeded).toBe(6);
    expect(result.expired).toBe(4);
  });

  it('spreads fires over a flexible window, so fewer wait in the queue', () => {
    const burst = simulateHerd(1_000, { ...base, maxConcurrency: 10 }, constant(1), random());
    const spread = simulateHerd(1_000, { ...base, maxConcurrency: 10, flexibleWindowS: 3600 }, constant(1), random());

    expect(spread.queueAgeP99S).toBeGreaterThan(0);
    expect(spread.drainS).toBeGreaterThan(burst.drainS);
    expect(spread.peakConcurrency).toBeLessThanOrEqual(burst.peakConcurrency);
  });

  it('draws durations from the samples and is reproducible for one seed', () => {
    const draw = () => simulateHerd(500, base, samplerFrom([0.5, 1, 2], seededRandom(3)), seededRandom(3));

    expect(draw()).toEqual(draw());
    expect(() => samplerFrom([], random())).toThrow('no duration samples');
  });
});
