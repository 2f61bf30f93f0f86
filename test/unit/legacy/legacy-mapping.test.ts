import { describe, expect, it } from 'vitest';
import { convertCrontab } from '../../../shared/domain/cron/crontab.ts';
import { parseCeleryField } from '../../../shared/domain/legacy/celery-crontab.ts';
import { mapCeleryCrontab, mapCeleryInterval, mapLegacySchedule } from '../../../shared/domain/legacy/legacy-mapping.ts';
import type { LegacyCrontab, LegacySchedule } from '../../../shared/domain/legacy/legacy-schedule.ts';

function crontab(fields: string, timezone = 'UTC'): LegacyCrontab {
  const [minute, hour, day_of_month, month_of_year, day_of_week] = fields.split(' ');
  return { minute, hour, day_of_month, month_of_year, day_of_week, timezone };
}

/** Celery crontab (minute hour day_of_month month_of_year day_of_week, as in a 5-field crontab) → what we create. */
const crontabCases: [fields: string, timezone: string, expected: string][] = [
  // fixed cadences: exactly their UTC time
  ['0 2 * * *', 'UTC', 'daily'],
  ['0 3 * * 1', 'UTC', 'weekly'],
  ['0 3 * * mon', 'UTC', 'weekly'],
  ['0 3 * * Monday', 'UTC', 'weekly'],
  ['0 4 1 * *', 'UTC', 'monthly'],
  ['0 2 * * *', 'Etc/UTC', 'daily'],
  ['00 02 * * 0-6', 'UTC', 'daily'],
  ['0 2 * 1-12 *', 'UTC', 'daily'],
  // the same times elsewhere, or almost the cadence, stay custom
  ['0 2 * * *', 'Europe/Paris', 'custom 0 2 * * * Europe/Paris'],
  ['0 3 * * 1', 'America/New_York', 'custom 0 3 * * 1 America/New_York'],
  ['30 2 * * *', 'UTC', 'custom 30 2 * * * UTC'],
  ['0 3 * * 2', 'UTC', 'custom 0 3 * * 2 UTC'],
  ['0 4 2 * *', 'UTC', 'custom 0 4 2 * * UTC'],
  ['0 2 * 1 *', 'UTC', 'custom 0 2 * 1 * UTC'],
  // celery syntax → 5-field crontab
  ['*/15 * * * *', 'UTC', 'custom */15 * * * * UTC'],
  ['0 */6 * * *', 'UTC', 'custom 0 */6 * * * UTC'],
  ['0 0,12 * * *', 'UTC', 'custom 0 */12 * * * UTC'],
  ['0 9 * * mon-fri', 'UTC', 'custom 0 9 * * 1-5 UTC'],
  ['0 9 * * MON-FRI', 'UTC', 'custom 0 9 * * 1-5 UTC'],
  ['30 9 * * 1,3,5', 'Asia/Tokyo', 'custom 30 9 * * 1,3,5 Asia/Tokyo'],
  ['0 9 * * sun', 'UTC', 'custom 0 9 * * 0 UTC'],
  ['0 9 * * 0', 'UTC', 'custom 0 9 * * 0 UTC'],
  ['0 9 * * sat,sun', 'UTC', 'custom 0 9 * * 0,6 UTC'],
  // celery wraps reversed ranges around the end of the field
  ['0 9 * * fri-mon', 'UTC', 'custom 0 9 * * 0,1,5,6 UTC'],
  ['0 22-2 * * *', 'UTC', 'custom 0 0-2,22,23 * * * UTC'],
  ['0 0 28-3 * *', 'UTC', 'custom 0 0 1-3,28-31 * * UTC'],
  ['0 0 1 11-2 *', 'UTC', 'custom 0 0 1 1,2,11,12 * UTC'],
  // steps take every n-th value of the range (or of the whole field)
  ['0 1-10/3 * * *', 'UTC', 'custom 0 1,4,7,10 * * * UTC'],
  ['0 0 */10 * *', 'UTC', 'custom 0 0 */10 * * UTC'],
  ['0 0 * */3 *', 'UTC', 'custom 0 0 * */3 * UTC'],
  ['0 0 * * */2', 'UTC', 'custom 0 0 * * */2 UTC'],
  ['5,35 8-17 * * 1-5', 'Europe/Berlin', 'custom 5,35 8-17 * * 1-5 Europe/Berlin'],
  ['0 0 1,15 * *', 'UTC', 'custom 0 0 1,15 * * UTC'],
  ['0 0 L * *', 'UTC', 'skip celery cannot parse'],
  // the AND trap: both day fields restricted
  ['0 0 1 * 1', 'UTC', 'skip restricts both day_of_month (1) and day_of_week (1)'],
  ['0 0 1-7 * mon', 'UTC', 'skip restricts both day_of_month (1-7) and day_of_week (mon)'],
  ['0 0 */2 * */2', 'UTC', 'skip restricts both'],
  // what celery itself refuses
  ['0 24 * * *', 'UTC', 'skip celery cannot parse its crontab: hour "24": 24 is above 23'],
  ['60 0 * * *', 'UTC', 'skip celery cannot parse its crontab: minute "60"'],
  ['0 0 0 * *', 'UTC', 'skip celery cannot parse its crontab: day_of_month "0": 0 is below 1'],
  ['0 0 * jan *', 'UTC', 'skip celery cannot parse its crontab: month_of_year "jan"'],
  ['0 0 * * 7', 'UTC', 'skip celery cannot parse its crontab: day_of_week "7": 7 is above 6'],
  ['5/10 * * * *', 'UTC', 'skip celery cannot parse its crontab: minute "5/10"'],
  ['*/0 * * * *', 'UTC', 'skip celery cannot parse its crontab: minute "*/0": a step of 0 is not allowed'],
  ['0 1-5/ * * *', 'UTC', 'skip celery cannot parse its crontab: hour "1-5/"'],
  ['0 1,,2 * * *', 'UTC', 'skip celery cannot parse its crontab: hour "1,,2": empty list item'],
  ['0 -1 * * *', 'UTC', 'skip celery cannot parse its crontab: hour "-1": negative numbers are not supported'],
  ['0 0 * * *', 'Mars/Olympus', 'skip crontab timezone "Mars/Olympus" is not an IANA time zone'],
];

describe('mapCeleryCrontab', () => {
  it.each(crontabCases)('maps %s in %s to %s', (fields, timezone, expected) => {
    // act
    const timing = mapCeleryCrontab(crontab(fields, timezone));

    // assert
    if (expected.startsWith('skip ')) {
      expect(timing.ok).toBe(false);
      if (!timing.ok) expect(timing.reason).toContain(expected.slice(5));
      return;
    }
    if (!timing.ok) throw new Error(timing.reason);
    const got = timing.cadence === 'custom' ? `custom ${timing.cron_expression} ${timing.timezone}` : timing.cadence;
    expect(got).toBe(expected);
    if (timing.cadence === 'custom') expect(convertCrontab(timing.cron_expression).ok).toBe(true);
  });

  it('emits only crontabs whose day rule is an AND, whatever the restricted day field', () => {
    // act
    const byDom = mapCeleryCrontab(crontab('0 0 1,15 * *'));
    const byDow = mapCeleryCrontab(crontab('0 0 * * 1,4'));

    // assert: one `*` day field makes Vixie cron AND them, like celery
    expect(byDom.ok && byDom.cadence === 'custom' && byDom.cron_expression.split(' ')[4]).toBe('*');
    expect(byDow.ok && byDow.cadence === 'custom' && byDow.cron_expression.split(' ')[2]).toBe('*');
  });
});

describe('parseCeleryField', () => {
  it.each([
    ['*', 'minute', 60],
    ['*/20', 'minute', 3],
    ['1-5/2,10', 'hour', 4],
    ['mon-wed', 'day_of_week', 3],
    ['1-5/2/7', 'hour', 3],
  ] as const)('expands %s in %s to %i values', (text, field, count) => {
    // act
    const values = parseCeleryField(text, field);

    // assert
    expect(values).toHaveLength(count);
  });

  it('reads day names in any numeric field, as celery does', () => {
    // act / assert
    expect(parseCeleryField('tue', 'hour')).toEqual([2]);
  });
});

/** Celery interval (every, period) → what we create. */
const intervalCases: [every: number, period: string, expected: string][] = [
  [5, 'minutes', 'custom */5 * * * *'],
  [10, 'minutes', 'custom */10 * * * *'],
  [15, 'minutes', 'custom */15 * * * *'],
  [30, 'minutes', 'custom */30 * * * *'],
  [60, 'minutes', 'custom 0 * * * *'],
  [1, 'hours', 'custom 0 * * * *'],
  [2, 'hours', 'custom 0 */2 * * *'],
  [6, 'hours', 'custom 0 */6 * * *'],
  [12, 'hours', 'custom 0 */12 * * *'],
  [24, 'hours', 'custom 0 0 * * *'],
  [1, 'days', 'custom 0 0 * * *'],
  [3600, 'seconds', 'custom 0 * * * *'],
  [900_000_000, 'microseconds', 'custom */15 * * * *'],
  [7, 'hours', 'skip does not divide the day evenly'],
  [5, 'hours', 'skip does not divide the day evenly'],
  [7, 'minutes', 'skip does not divide the hour evenly'],
  [90, 'minutes', 'skip not a whole number of hours'],
  [2, 'days', 'skip longer than a day'],
  [1, 'minutes', 'skip more often than every 5 minutes'],
  [30, 'seconds', 'skip not a whole number of minutes'],
  [0, 'hours', 'skip not a positive whole number'],
  [1, 'weeks', 'skip interval period "weeks" is not one of'],
];

describe('mapCeleryInterval', () => {
  it.each(intervalCases)('maps every %i %s to %s', (every, period, expected) => {
    // act
    const timing = mapCeleryInterval({ every, period });

    // assert
    if (expected.startsWith('skip ')) {
      expect(timing.ok).toBe(false);
      if (!timing.ok) expect(timing.reason).toContain(expected.slice(5));
      return;
    }
    if (!timing.ok) throw new Error(timing.reason);
    expect(timing.cadence === 'custom' && `custom ${timing.cron_expression}`).toBe(expected);
    expect(timing.cadence === 'custom' && timing.timezone).toBe('UTC');
  });
});

function secretScan(overrides: Partial<Extract<LegacySchedule, { model: 'secretscan.schedule' }>> = {}): LegacySchedule {
  return {
    model: 'secretscan.schedule',
    id: '12',
    name: 'Nightly repo scan',
    repository_url: 'https://github.com/acme/api',
    scan_options: { branches: ['main'], depth: 50 },
    created_at: '2024-01-01T00:00:00.000Z',
    task: {
      id: 40,
      name: 'secretscan-12',
      task: 'secretscan.tasks.run',
      enabled: true,
      one_off: false,
      crontab: crontab('0 2 * * *'),
      interval: null,
    },
    ...overrides,
  };
}

describe('mapLegacySchedule', () => {
  it('maps a secret scan to secret_scan with its options as secretscan scope and the legacy tags', () => {
    // act
    const mapping = mapLegacySchedule(secretScan());

    // assert
    expect(mapping).toEqual({
      ok: true,
      notes: [],
      request: {
        name: 'Nightly repo scan',
        description: 'Migrated from legacy Secret Scan schedule 12 (periodic task 40 "secretscan-12")',
        scan_type: 'secret_scan',
        target: 'https://github.com/acme/api',
        scope: { branch: 'main', max_commits: 50, source_legacy_model: 'secretscan.schedule', source_legacy_id: '12' },
        cadence: 'daily',
        enabled: true,
      },
    });
  });

  it('maps a continuous network schedule to vm with its ports, disabled when its task is', () => {
    // prepare
    const row: LegacySchedule = {
      model: 'network.continuousschedule',
      id: '7',
      name: 'DMZ',
      target: '10.0.0.0/24',
      ports: '22,443',
      created_at: null,
      task: {
        id: 3,
        name: 'net-7',
        task: 'network.tasks.scan',
        enabled: false,
        one_off: false,
        crontab: null,
        interval: { every: 6, period: 'hours' },
      },
    };

    // act
    const mapping = mapLegacySchedule(row);

    // assert
    expect(mapping.ok && mapping.request).toMatchObject({
      scan_type: 'vm',
      target: '10.0.0.0/24',
      scope: { ports: '22,443', source_legacy_model: 'network.continuousschedule', source_legacy_id: '7' },
      cadence: 'custom',
      cron_expression: '0 */6 * * *',
      timezone: 'UTC',
      enabled: false,
    });
  });

  it('shortens a name over 200 characters and keeps the full one in the description', () => {
    // act
    const mapping = mapLegacySchedule(secretScan({ name: 'x'.repeat(250) }));

    // assert
    expect(mapping.ok && mapping.request.name).toHaveLength(200);
    expect(mapping.ok && mapping.request.description).toContain('x'.repeat(250));
    expect(mapping.ok && mapping.notes).toEqual(['name shortened to 200 characters (the full name is in the description)']);
  });

  it.each([
    ['no periodic task', { task: null }, 'has no periodic task'],
    ['a one-off task', { task: { ...secretScan().task!, one_off: true } }, 'is one-off'],
    ['neither crontab nor interval', { task: { ...secretScan().task!, crontab: null } }, 'neither a crontab nor an interval'],
  ] as const)('skips a schedule with %s', (_label, overrides, reason) => {
    // act
    const mapping = mapLegacySchedule(secretScan(overrides));

    // assert
    expect(mapping.ok).toBe(false);
    if (!mapping.ok) expect(mapping.reason).toContain(reason);
  });

  it('never lets scan options overwrite the legacy tags', () => {
    // act
    const mapping = mapLegacySchedule(secretScan({ scan_options: { source_legacy_id: '999', depth: 1 } }));

    // assert
    expect(mapping.ok && mapping.request.scope).toEqual({
      max_commits: 1,
      source_legacy_model: 'secretscan.schedule',
      source_legacy_id: '12',
    });
  });

  it('translates the legacy secret scan options and says what it dropped', () => {
    // act
    const mapping = mapLegacySchedule(
      secretScan({ scan_options: { branches: ['main', 'release'], include_history: false, exclude_paths: ['vendor'], depth: 0 } }),
    );

    // assert
    expect(mapping.ok && mapping.request.scope).toEqual({
      branch: 'main',
      history: false,
      source_legacy_model: 'secretscan.schedule',
      source_legacy_id: '12',
    });
    expect(mapping.ok && mapping.notes).toEqual([
      'legacy branches ["main","release"]: only "main" is scanned (one branch per schedule)',
      'legacy scan option "exclude_paths" has no secret_scan counterpart and was dropped',
      'legacy value for max_commits (0) is not valid for secret_scan and was dropped',
    ]);
  });
});
