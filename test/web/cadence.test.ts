import { describe, expect, it } from 'vitest';
import { formatDistinct, formatShort } from '../../web/src/cadence.ts';

describe('run times', () => {
  const now = new Date('2026-11-28T12:00:00Z');

  it('tells runs that share a minute apart to the second, and leaves the others to the minute', () => {
    const times = formatDistinct(['2026-11-28T10:00:05Z', '2026-11-28T10:00:41Z', '2026-11-28T09:00:00Z'], now);

    expect(times[0]).not.toBe(times[1]);
    expect(times[0]).toBe(formatShort('2026-11-28T10:00:05Z', now, true));
    expect(times[1]).toBe(formatShort('2026-11-28T10:00:41Z', now, true));
    expect(times[2]).toBe(formatShort('2026-11-28T09:00:00Z', now));
    expect(times[0].length).toBeGreaterThan(times[2].length);
  });

  it('keeps every time to the minute when no two share one', () => {
    const isos = ['2026-11-28T10:01:00Z', '2026-11-28T10:00:00Z'];
    expect(formatDistinct(isos, now)).toEqual(isos.map((iso) => formatShort(iso, now)));
  });
});
