import { describe, it, expect } from 'vitest';
import { cadenceExpressions } from '../../../shared/domain/cron/crontab.ts';
import { nextFireTime, nextFireTimeOf, parseEventBridgeCron } from '../../../shared/domain/cron/eventbridge-cron.ts';

/** Successive fires after `from`, as ISO strings. */
function fires(expression: string, timezone: string, from: string, count: number): string[] {
  const out: string[] = [];
  let after = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = nextFireTime(expression, timezone, after);
    if (next === null) break;
    out.push(next.toISOString());
    after = next;
  }
  return out;
}

describe('nextFireTime in UTC', () => {
  it.each([
    ['daily', cadenceExpressions.daily, '2026-01-01T00:00:00Z', '2026-01-01T02:00:00.000Z'],
    ['weekly', cadenceExpressions.weekly, '2026-01-01T00:00:00Z', '2026-01-05T03:00:00.000Z'],
    ['monthly', cadenceExpressions.monthly, '2026-01-01T04:00:00Z', '2026-02-01T04:00:00.000Z'],
    ['monthly across a year end', cadenceExpressions.monthly, '2026-12-15T00:00:00Z', '2027-01-01T04:00:00.000Z'],
  ])('fires the %s cadence at its UTC time', (_name, expression, after, expected) => {
    // act
    const next = nextFireTime(expression, 'UTC', new Date(after));

    // assert
    expect(next?.toISOString()).toBe(expected);
  });

  it('returns a fire strictly after the given instant', () => {
    // act
    const atFire = nextFireTime(cadenceExpressions.daily, 'UTC', new Date('2026-01-01T02:00:00Z'));
    const justAfter = nextFireTime(cadenceExpressions.daily, 'UTC', new Date('2026-01-01T02:00:30Z'));
    const justBefore = nextFireTime(cadenceExpressions.daily, 'UTC', new Date('2026-01-01T01:59:59.999Z'));

    // assert
    expect(atFire?.toISOString()).toBe('2026-01-02T02:00:00.000Z');
    expect(justAfter?.toISOString()).toBe('2026-01-02T02:00:00.000Z');
    expect(justBefore?.toISOString()).toBe('2026-01-01T02:00:00.000Z');
  });

  it('walks minute lists across hour boundaries', () => {
    // act
    const next = fires('cron(0,15,30,45 * * * ? *)', 'UTC', '2026-01-01T10:07:00Z', 5);

    // assert
    expect(next).toEqual([
      '2026-01-01T10:15:00.000Z',
      '2026-01-01T10:30:00.000Z',
      '2026-01-01T10:45:00.000Z',
      '2026-01-01T11:00:00.000Z',
      '2026-01-01T11:15:00.000Z',
    ]);
  });

  it('reads day-of-week names and EventBridge numbers (SUN=1) alike', () => {
    // act
    const byName = nextFireTime('cron(0 0 ? * MON-FRI *)', 'UTC', new Date('2026-01-02T12:00:00Z'));
    const byNumber = nextFireTime('cron(0 0 ? * 2-6 *)', 'UTC', new Date('2026-01-02T12:00:00Z'));

    // assert
    expect(byName?.toISOString()).toBe('2026-01-05T00:00:00.000Z');
    expect(byNumber?.toISOString()).toBe('2026-01-05T00:00:00.000Z');
  });

  it('reads EventBridge steps such as 0/20', () => {
    // act
    const next = fires('cron(0/20 8 * * ? *)', 'UTC', '2026-01-01T00:00:00Z', 4);

    // assert
    expect(next).toEqual(['2026-01-01T08:00:00.000Z', '2026-01-01T08:20:00.000Z', '2026-01-01T08:40:00.000Z', '2026-01-02T08:00:00.000Z']);
  });

  it('finds 29 February in the next leap year', () => {
    // act
    const next = nextFireTime('cron(0 0 29 2 ? *)', 'UTC', new Date('2026-03-01T00:00:00Z'));

    // assert
    expect(next?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('finds 29 February across the 2100 gap of eight years', () => {
    // act
    const next = nextFireTime('cron(0 0 29 2 ? *)', 'UTC', new Date('2096-03-01T00:00:00Z'));

    // assert
    expect(next?.toISOString()).toBe('2104-02-29T00:00:00.000Z');
  });

  it.each([
    ['a date that does not exist', 'cron(0 0 30 2 ? *)'],
    ['a year that has passed', 'cron(0 0 1 1 ? 2020)'],
  ])('returns null for %s', (_name, expression) => {
    // act
    const next = nextFireTime(expression, 'UTC', new Date('2026-01-01T00:00:00Z'));

    // assert
    expect(next).toBeNull();
  });
});

describe('nextFireTimeOf', () => {
  it('returns the earliest fire of a split pair', () => {
    // prepare
    const split = ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)'];

    // act
    const fromThursday = nextFireTimeOf(split, 'UTC', new Date('2026-01-08T00:00:00Z'));
    const fromTuesday = nextFireTimeOf(split, 'UTC', new Date('2026-01-13T00:00:00Z'));

    // assert
    expect(fromThursday?.toISOString()).toBe('2026-01-12T00:00:00.000Z');
    expect(fromTuesday?.toISOString()).toBe('2026-01-15T00:00:00.000Z');
  });

  it('returns null when no expression fires', () => {
    // act
    const next = nextFireTimeOf(['cron(0 0 30 2 ? *)'], 'UTC', new Date('2026-01-01T00:00:00Z'));

    // assert
    expect(next).toBeNull();
  });
});

describe('nextFireTime in a time zone', () => {
  it('fires at the New York wall time in winter and in summer', () => {
    // act
    const winter = nextFireTime(cadenceExpressions.daily, 'America/New_York', new Date('2026-01-10T00:00:00Z'));
    const summer = nextFireTime(cadenceExpressions.daily, 'America/New_York', new Date('2026-07-10T00:00:00Z'));

    // assert
    expect(winter?.toISOString()).toBe('2026-01-10T07:00:00.000Z');
    expect(summer?.toISOString()).toBe('2026-07-10T06:00:00.000Z');
  });

  it('skips a wall time that spring-forward removes, for that day only', () => {
    // act (2026-03-08: 02:00 EST becomes 03:00 EDT)
    const next = fires('cron(30 2 * * ? *)', 'America/New_York', '2026-03-07T12:00:00Z', 2);

    // assert
    expect(next).toEqual(['2026-03-09T06:30:00.000Z', '2026-03-10T06:30:00.000Z']);
  });

  it('fires hourly through spring-forward without inventing the missing hour', () => {
    // act
    const next = fires('cron(0 * * * ? *)', 'America/New_York', '2026-03-08T05:30:00Z', 3);

    // assert: 01:00 EST, then 03:00 EDT
    expect(next).toEqual(['2026-03-08T06:00:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-08T08:00:00.000Z']);
  });

  it('fires a wall time that fall-back repeats once, at its first occurrence', () => {
    // act (2026-11-01: 02:00 EDT becomes 01:00 EST)
    const next = fires('cron(30 1 * * ? *)', 'America/New_York', '2026-10-31T12:00:00Z', 2);

    // assert: 01:30 EDT, then the next day's 01:30 EST
    expect(next).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it('does not repeat the fall-back hour for an hourly expression', () => {
    // act
    const next = fires('cron(0 * * * ? *)', 'America/New_York', '2026-11-01T04:30:00Z', 3);

    // assert: 01:00 EDT, (01:00 EST skipped), 02:00 EST, 03:00 EST
    expect(next).toEqual(['2026-11-01T05:00:00.000Z', '2026-11-01T07:00:00.000Z', '2026-11-01T08:00:00.000Z']);
  });

  it('does not fire a repeated wall time when asked from within its second occurrence', () => {
    // act (06:10Z is 01:10 EST, the second 01:10 of the day)
    const next = nextFireTime('cron(30 1 * * ? *)', 'America/New_York', new Date('2026-11-01T06:10:00Z'));

    // assert
    expect(next?.toISOString()).toBe('2026-11-02T06:30:00.000Z');
  });

  it('applies the half-hour offset of Asia/Kolkata', () => {
    // act
    const daily = nextFireTime(cadenceExpressions.daily, 'Asia/Kolkata', new Date('2026-01-01T00:00:00Z'));
    const monthly = nextFireTime(cadenceExpressions.monthly, 'Asia/Kolkata', new Date('2026-01-01T00:00:00Z'));

    // assert: 02:00 IST on 2 January; 04:00 IST on 1 February
    expect(daily?.toISOString()).toBe('2026-01-01T20:30:00.000Z');
    expect(monthly?.toISOString()).toBe('2026-01-31T22:30:00.000Z');
  });

  it('matches the day of week on the local date, not the UTC one', () => {
    // act (20:00Z on Sunday 4 January is 01:30 IST on Monday 5 January)
    const next = nextFireTime(cadenceExpressions.weekly, 'Asia/Kolkata', new Date('2026-01-04T20:00:00Z'));

    // assert
    expect(next?.toISOString()).toBe('2026-01-04T21:30:00.000Z');
  });

  it('handles the zones furthest from UTC', () => {
    // act
    const kiritimati = nextFireTime('cron(0 0 * * ? *)', 'Pacific/Kiritimati', new Date('2026-01-01T09:59:00Z'));
    const pagoPago = nextFireTime('cron(0 0 * * ? *)', 'Pacific/Pago_Pago', new Date('2026-01-01T10:59:00Z'));

    // assert: midnight at UTC+14 and at UTC-11
    expect(kiritimati?.toISOString()).toBe('2026-01-01T10:00:00.000Z');
    expect(pagoPago?.toISOString()).toBe('2026-01-01T11:00:00.000Z');
  });

  it('walks a year of daily fires in a zone quickly', () => {
    // prepare
    const started = performance.now();

    // act
    const year = fires(cadenceExpressions.daily, 'Europe/London', '2026-01-01T00:00:00Z', 365);

    // assert
    expect(year).toHaveLength(365);
    expect(year[364]).toBe('2026-12-31T02:00:00.000Z');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('parseEventBridgeCron', () => {
  it('parses the value sets, with days of week numbered from SUN=0', () => {
    // act
    const fields = parseEventBridgeCron('cron(0,30 9-17 ? JAN,jul MON-FRI 2026-2027)');

    // assert
    expect(fields).toEqual({
      minutes: [0, 30],
      hours: [9, 10, 11, 12, 13, 14, 15, 16, 17],
      daysOfMonth: null,
      months: [1, 7],
      daysOfWeek: [1, 2, 3, 4, 5],
      years: [2026, 2027],
    });
  });

  it.each([
    ['a bare crontab', '0 0 * * *'],
    ['no ?', 'cron(0 0 * * * *)'],
    ['two ?', 'cron(0 0 ? * ? *)'],
    ['five fields', 'cron(0 0 * * ?)'],
    ['the L modifier', 'cron(0 0 L * ? *)'],
    ['the # modifier', 'cron(0 0 ? * 2#1 *)'],
    ['an out-of-range minute', 'cron(60 0 * * ? *)'],
    ['a reversed range', 'cron(0 5-1 * * ? *)'],
  ])('throws RangeError on %s', (_name, expression) => {
    // act / assert
    expect(() => parseEventBridgeCron(expression)).toThrow(RangeError);
  });

  it('throws RangeError for an unknown time zone', () => {
    // act / assert
    expect(() => nextFireTime(cadenceExpressions.daily, 'Mars/Olympus_Mons', new Date())).toThrow(RangeError);
  });
});
