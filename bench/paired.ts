/**
 * Paired, interleaved measurement for the benches: a command and its reference run in turn
 * (A B A B ...), so a change in the machine's speed during the run hits both alike, and each
 * ratio is taken within one pair. Every figure is printed as min / median / max: quote the median.
 */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** Over the finite values only: a run that was killed has no figure, and is said so by its caller. */
export function spread(values: readonly number[]): Spread {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { min: Number.NaN, median: Number.NaN, max: Number.NaN };
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { min: sorted[0], median, max: sorted.at(-1)! };
}

/** `median (min–max)` with a unit and a number of decimals. */
export function formatSpread(values: readonly number[], unit = '', digits = 0): string {
  const { min, median, max } = spread(values);
  const f = (value: number) => `${value.toFixed(digits)}${unit}`;
  const finite = values.filter(Number.isFinite).length;
  if (finite === 0) return 'none';
  return `${f(median)} (${f(min)}–${f(max)})${finite < values.length ? ` [${finite} of ${values.length}]` : ''}`;
}

/** Ratios a[i] / b[i] of paired samples. */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  return a.map((value, i) => value / b[i]);
}

/**
 * Runs `warmups` unrecorded rounds, then `runs` rounds of every task in turn (one round: each task
 * once, in the given order), and returns each task's samples in round order, so samples of the same
 * round form a pair.
 */
export async function interleaved<T>(tasks: Record<string, () => Promise<T>>, runs: number, warmups = 1): Promise<Record<string, T[]>> {
  const samples = Object.fromEntries(Object.keys(tasks).map((name) => [name, [] as T[]]));
  for (let round = -warmups; round < runs; round += 1) {
    for (const [name, task] of Object.entries(tasks)) {
      const sample = await task();
      if (round >= 0) samples[name].push(sample);
    }
  }
  return samples;
}
