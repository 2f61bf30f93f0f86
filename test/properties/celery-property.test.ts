import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cadenceExpressions, conversionMessages, convertCrontab } from '../../shared/domain/cron/crontab.ts';
import { nextFireTimeOf } from '../../shared/domain/cron/eventbridge-cron.ts';
import { mapCeleryCrontab } from '../../shared/domain/legacy/legacy-mapping.ts';
import { celeryFireTimes, parseCeleryReference } from '../helpers/celery-reference.ts';

// A year with a 29 February in it.
const WINDOW_START = new Date('2027-09-01T00:00:00Z');
const WINDOW_END = new Date('2028-09-01T00:00:00Z');
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Grammar {
  min: number;
  count: number;
  /** Smallest step of `*\/n` and `a-b/n`; minutes and hours use larger ones so a year stays cheap to walk. */
  minStep: number;
  names?: boolean;
}

function value(g: Grammar): fc.Arbitrary<{ n: number; text: string }> {
  return fc.integer({ min: g.min, max: g.min + g.count - 1 }).chain((n) =>
    g.names
      ? fc.oneof(
          fc.constant({ n, text: String(n) }),
          fc.constantFrom(DAYS[n], DAYS[n].toUpperCase(), `${DAYS[n][0].toUpperCase()}${DAYS[n].slice(1)}`).map((text) => ({ n, text })),
        )
      : fc.constant({ n, text: String(n) }),
  );
}

function item(g: Grammar): fc.Arbitrary<string> {
  const step = fc.integer({ min: g.minStep, max: Math.max(g.minStep, Math.min(g.count, 20)) });
  // Ranges in either order: celery wraps a reversed one around the end of the field.
  const range = fc.tuple(value(g), value(g)).map(([a, b]) => `${a.text}-${b.text}`);
  return fc.oneof(
    { arbitrary: value(g).map((v) => v.text), weight: 4 },
    { arbitrary: range, weight: 2 },
    { arbitrary: fc.tuple(range, step).map(([r, s]) => `${r}/${s}`), weight: 2 },
    { arbitrary: step.map((s) => `*/${s}`), weight: 1 },
  );
}

function field(g: Grammar, starWeight: number, maxItems: number): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant('*'), weight: starWeight },
    { arbitrary: fc.array(item(g), { minLength: 1, maxLength: maxItems }).map((items) => items.join(',')), weight: 4 },
  );
}

/** Celery crontabs that do not restrict both day fields (the AND trap is tested apart). */
const celeryCrontab = fc
  .record({
    minute: field({ min: 0, count: 60, minStep: 10 }, 0, 2),
    hour: field({ min: 0, count: 24, minStep: 3 }, 1, 2),
    day_of_week: field({ min: 0, count: 7, minStep: 2, names: true }, 2, 2),
    day_of_month: field({ min: 1, count: 31, minStep: 2 }, 2, 3),
    month_of_year: field({ min: 1, count: 12, minStep: 2 }, 3, 3),
    dayField: fc.constantFrom('day_of_week', 'day_of_month'),
  })
  .map(({ dayField, ...fields }) => ({ ...fields, [dayField]: '*', timezone: 'UTC' }));

function fireTimes(expressions: string[]): number[] {
  const out: number[] = [];
  for (let t = nextFireTimeOf(expressions, 'UTC', new Date(WINDOW_START.getTime() - 1)); t !== null && t < WINDOW_END;) {
    out.push(t.getTime());
    t = nextFireTimeOf(expressions, 'UTC', t);
  }
  return out;
}

function smallestGapMinutes(times: number[]): number {
  let smallest = Infinity;
  for (let i = 1; i < times.length; i++) smallest = Math.min(smallest, (times[i] - times[i - 1]) / 60_000);
  return smallest;
}

describe('celery crontab mapping against a celery reference', () => {
  it("fires at exactly celery's minutes over a year, or is refused for a reason the reference confirms", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(celeryCrontab, (row) => {
        // act
        const timing = mapCeleryCrontab(row);

        // assert
        expect(timing.ok).toBe(true);
        if (!timing.ok) return;
        const reference = celeryFireTimes(parseCeleryReference(row), WINDOW_START, WINDOW_END);
        if (timing.cadence !== 'custom') {
          expect(fireTimes([cadenceExpressions[timing.cadence]])).toEqual(reference);
          return;
        }
        expect(timing.timezone).toBe('UTC');
        const converted = convertCrontab(timing.cron_expression);
        if (!converted.ok) {
          expect([conversionMessages.tooFrequent, conversionMessages.neverFires]).toContain(converted.message);
          if (converted.message === conversionMessages.neverFires) expect(reference).toEqual([]);
          else expect(smallestGapMinutes(reference)).toBeLessThan(5);
          return;
        }
        expect(fireTimes(converted.expressions)).toEqual(reference);
      }),
      { numRuns: 1000 },
    );
  });
});
