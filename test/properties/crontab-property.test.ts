import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { conversionMessages, convertCrontab } from '../../shared/domain/cron/crontab.ts';
import { nextFireTimeOf } from '../../shared/domain/cron/eventbridge-cron.ts';
import { parseVixie, vixieFireTimes } from '../helpers/vixie-reference.ts';

// A year with a 29 February in it, so leap-day crontabs are exercised.
const WINDOW_START = new Date('2027-09-01T00:00:00Z');
const WINDOW_END = new Date('2028-09-01T00:00:00Z');

/** Rejections a syntactically valid crontab may legitimately get. */
const LEGITIMATE_REJECTIONS: string[] = [
  conversionMessages.tooFrequent,
  conversionMessages.neverFires,
  conversionMessages.bothDaysRestricted,
];

interface FieldGrammar {
  min: number;
  max: number;
  names?: readonly string[];
  nameBase?: number;
  /** Smallest step generated; minutes use a larger one so most crontabs clear the 5-minute floor. */
  minStep?: number;
}

/** One value, written as a number or (where the field has them) as a name in any letter case. */
function value(g: FieldGrammar, lo = g.min, hi = g.max): fc.Arbitrary<{ n: number; text: string }> {
  return fc.integer({ min: lo, max: hi }).chain((n) => {
    const nameIndex = n - (g.nameBase ?? 0);
    const name = g.names?.[nameIndex];
    const asNumber = fc.constant({ n, text: String(n) });
    if (name === undefined) return asNumber;
    return fc.oneof(
      asNumber,
      fc.constantFrom(name, name.toUpperCase(), name[0].toUpperCase() + name.slice(1)).map((text) => ({ n, text })),
    );
  });
}

function item(g: FieldGrammar): fc.Arbitrary<string> {
  const step = fc.integer({ min: g.minStep ?? 1, max: Math.min(g.max - g.min + 1, 20) });
  const range = value(g).chain((a) => value(g, a.n).map((b) => `${a.text}-${b.text}`));
  return fc.oneof(
    { arbitrary: value(g).map((v) => v.text), weight: 4 },
    { arbitrary: range, weight: g.minStep === undefined ? 2 : 1 },
    { arbitrary: fc.tuple(range, step).map(([r, s]) => `${r}/${s}`), weight: 2 },
    { arbitrary: fc.constant('*'), weight: 1 },
    { arbitrary: step.map((s) => `*/${s}`), weight: 1 },
  );
}

function field(g: FieldGrammar, starWeight: number, maxItems = 3): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant('*'), weight: starWeight },
    { arbitrary: fc.array(item(g), { minLength: 1, maxLength: maxItems }).map((items) => items.join(',')), weight: 4 },
  );
}

const crontab = fc
  .tuple(
    field({ min: 0, max: 59, minStep: 4 }, 0, 2),
    field({ min: 0, max: 23 }, 2),
    field({ min: 1, max: 31 }, 3),
    field({ min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'], nameBase: 1 }, 3),
    field({ min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'], nameBase: 0 }, 3),
  )
  .map((fields) => fields.join(' '));

function eventBridgeFireTimes(expressions: string[]): number[] {
  const out: number[] = [];
  for (let t = nextFireTimeOf(expressions, 'UTC', new Date(WINDOW_START.getTime() - 1)); t !== null && t < WINDOW_END;) {
    out.push(t.getTime());
    t = nextFireTimeOf(expressions, 'UTC', t);
  }
  return out;
}

describe('convertCrontab against the Vixie reference', () => {
  it('emits expressions whose union fires exactly when the crontab does over a year', () => {
    fc.assert(
      fc.property(crontab, (text) => {
        // act
        const result = convertCrontab(text);

        // assert
        if (!result.ok) {
          expect(LEGITIMATE_REJECTIONS).toContain(result.message);
          if (result.message === conversionMessages.neverFires) {
            expect(vixieFireTimes(parseVixie(text), WINDOW_START, WINDOW_END)).toEqual([]);
          }
          return;
        }
        expect(result.expressions.length).toBeGreaterThanOrEqual(1);
        expect(result.expressions.length).toBeLessThanOrEqual(2);
        for (const expression of result.expressions) {
          expect(expression.length).toBeLessThanOrEqual(256);
          expect(expression.split('?')).toHaveLength(2);
        }
        const reference = vixieFireTimes(parseVixie(text), WINDOW_START, WINDOW_END);
        expect(eventBridgeFireTimes(result.expressions)).toEqual(reference);
        expect(smallestGapMinutes(reference)).toBeGreaterThanOrEqual(5);
      }),
      { numRuns: 150 },
    );
  });

  it('rejects as never firing exactly the month-end crontabs that do not fire in a leap year', () => {
    const monthEnd = fc
      .tuple(fc.subarray([29, 30, 31], { minLength: 1 }), fc.subarray([2, 4, 6, 9, 11], { minLength: 1 }))
      .map(([days, months]) => `0 0 ${days.join(',')} ${months.join(',')} *`);
    fc.assert(
      fc.property(monthEnd, (text) => {
        // act
        const result = convertCrontab(text);

        // assert
        const firesInWindow = vixieFireTimes(parseVixie(text), WINDOW_START, WINDOW_END).length > 0;
        expect(result.ok ? 'fires' : result.message).toBe(firesInWindow ? 'fires' : conversionMessages.neverFires);
      }),
    );
  });
});

function smallestGapMinutes(times: number[]): number {
  let smallest = Infinity;
  for (let i = 1; i < times.length; i++) smallest = Math.min(smallest, (times[i] - times[i - 1]) / 60_000);
  return smallest;
}
