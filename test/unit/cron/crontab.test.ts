import { describe, it, expect } from 'vitest';
import { cadenceExpressions, conversionMessages, convertCrontab, isValidTimeZone } from '../../../shared/domain/cron/crontab.ts';

describe('convertCrontab', () => {
  describe('the conversion cases of issue 2', () => {
    it.each([
      ['0 3 * * 1', ['cron(0 3 ? * MON *)']],
      ['30 9 * * mon-fri', ['cron(30 9 ? * MON-FRI *)']],
      ['0 0 * * 0', ['cron(0 0 ? * SUN *)']],
      ['0 0 * * 7', ['cron(0 0 ? * SUN *)']],
      ['*/15 * * * *', ['cron(0,15,30,45 * * * ? *)']],
      ['0 0 1,15 * 1', ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)']],
      ['0 0 15 * 0-6', ['cron(0 0 * * ? *)']],
      ['@weekly', ['cron(0 0 ? * SUN *)']],
    ])('converts %s', (crontab, expressions) => {
      // act
      const result = convertCrontab(crontab);

      // assert
      expect(result).toEqual({ ok: true, expressions });
    });

    it.each([
      ['0 0 */2 * 1', conversionMessages.bothDaysRestricted],
      ['0 0 30 2 *', 'never fires'],
      ['0 0 * * * *', 'seconds are not supported: use 5 fields'],
      ['cron(0 2 * * ? *)', 'AWS cron syntax is not accepted: use a standard 5-field crontab'],
      ['0 0 L * *', 'AWS cron syntax is not accepted: use a standard 5-field crontab'],
      ['5/15 * * * *', '5/15 is not portable: write 5-59/15 in the minute field'],
      ['60 * * * *', '60 is out of range for the minute field (0-59)'],
      ['0 0 5-1 * *', 'reversed range 5-1 in the day-of-month field'],
      ['@reboot', '@reboot is not supported: a schedule needs a time'],
      ['* * * * *', 'fires more often than every 5 minutes'],
    ])('rejects %s', (crontab, message) => {
      // act
      const result = convertCrontab(crontab);

      // assert
      expect(result).toEqual({ ok: false, message });
    });
  });

  it.each([
    ['@yearly', 'cron(0 0 1 1 ? *)'],
    ['@annually', 'cron(0 0 1 1 ? *)'],
    ['@monthly', 'cron(0 0 1 * ? *)'],
    ['@daily', 'cron(0 0 * * ? *)'],
    ['@midnight', 'cron(0 0 * * ? *)'],
    ['@hourly', 'cron(0 * * * ? *)'],
    ['@WEEKLY', 'cron(0 0 ? * SUN *)'],
  ])('expands the macro %s', (crontab, expression) => {
    // act
    const result = convertCrontab(crontab);

    // assert
    expect(result).toEqual({ ok: true, expressions: [expression] });
  });

  it.each([
    ['0 0 1 jan-MAR *', 'cron(0 0 1 1-3 ? *)'],
    ['0 0 1 Jun,dec *', 'cron(0 0 1 6,12 ? *)'],
    ['0 0 * * SAT,sun', 'cron(0 0 ? * SUN,SAT *)'],
    ['0 0 * * 5-7', 'cron(0 0 ? * SUN,FRI,SAT *)'],
    ['0 0 * * 0-7', 'cron(0 0 * * ? *)'],
    ['0 0 * * */2', 'cron(0 0 ? * SUN,TUE,THU,SAT *)'],
    ['0 0 * * mon-fri/2', 'cron(0 0 ? * MON,WED,FRI *)'],
  ])('accepts names and Vixie day-of-week numbering in %s', (crontab, expression) => {
    // act
    const result = convertCrontab(crontab);

    // assert
    expect(result).toEqual({ ok: true, expressions: [expression] });
  });

  it.each([
    ['1-30/5 * * * *', 'cron(1,6,11,16,21,26 * * * ? *)'],
    ['0 */6 * * *', 'cron(0 0,6,12,18 * * ? *)'],
    ['0 9-17 * * *', 'cron(0 9-17 * * ? *)'],
    ['0 8,9,12 * * *', 'cron(0 8,9,12 * * ? *)'],
    ['0 1,2,3,5,6 * * *', 'cron(0 1-3,5,6 * * ? *)'],
    ['0 0 */2 * *', 'cron(0 0 1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31 * ? *)'],
    ['0 0 1-31 * *', 'cron(0 0 * * ? *)'],
    ['0 0 1 */3 *', 'cron(0 0 1 1,4,7,10 ? *)'],
    ['0 12 * 1-12/2 *', 'cron(0 12 * 1,3,5,7,9,11 ? *)'],
  ])('expands ranges and steps in %s', (crontab, expression) => {
    // act
    const result = convertCrontab(crontab);

    // assert
    expect(result).toEqual({ ok: true, expressions: [expression] });
  });

  describe('the day rule', () => {
    it('ANDs the day fields when day-of-month starts with * and keeps day-of-week', () => {
      // act
      const result = convertCrontab('0 0 * * 1-5');

      // assert
      expect(result).toEqual({ ok: true, expressions: ['cron(0 0 ? * MON-FRI *)'] });
    });

    it('ANDs the day fields when day-of-week starts with * and keeps day-of-month', () => {
      // act
      const result = convertCrontab('0 0 1,15 * */1');

      // assert
      expect(result).toEqual({ ok: true, expressions: ['cron(0 0 1,15 * ? *)'] });
    });

    it('rejects an AND of two restricted fields when day-of-week starts with *', () => {
      // act
      const result = convertCrontab('0 0 1 * */2');

      // assert
      expect(result).toEqual({ ok: false, message: conversionMessages.bothDaysRestricted });
    });

    it('splits an OR of two restricted fields, keeping the month in both', () => {
      // act
      const result = convertCrontab('0 6 1-7 6 fri');

      // assert
      expect(result).toEqual({ ok: true, expressions: ['cron(0 6 1-7 6 ? *)', 'cron(0 6 ? 6 FRI *)'] });
    });

    it('drops the half of a split that can never fire', () => {
      // act
      const result = convertCrontab('0 0 31 2 1');

      // assert
      expect(result).toEqual({ ok: true, expressions: ['cron(0 0 ? 2 MON *)'] });
    });
  });

  describe('never fires', () => {
    it('accepts 29 February because leap years have it', () => {
      // act
      const result = convertCrontab('0 0 29 2 *');

      // assert
      expect(result).toEqual({ ok: true, expressions: ['cron(0 0 29 2 ? *)'] });
    });

    it.each(['0 0 31 4 *', '0 0 30,31 2 *', '0 0 31 2,4,6,9,11 *'])('rejects %s', (crontab) => {
      // act
      const result = convertCrontab(crontab);

      // assert
      expect(result).toEqual({ ok: false, message: 'never fires' });
    });
  });

  describe('the 5-minute floor', () => {
    it.each(['*/5 * * * *', '0,5,10 * * * *', '0,55 * * * *', '55 0 * * *', '0,57 0,2 * * *', '0,57 0,23 1 * *', '58 23 * * *'])(
      'accepts %s',
      (crontab) => {
        // act
        const result = convertCrontab(crontab);

        // assert
        expect(result.ok).toBe(true);
      },
    );

    it.each([
      ['* * * * *', 'every minute'],
      ['*/4 * * * *', 'every 4 minutes'],
      ['0,4 3 * * *', 'two fires 4 minutes apart in one hour'],
      ['0,56 3,4 * * *', 'a 4-minute gap across an hour boundary'],
      ['0,58 0,23 * * *', 'a 2-minute gap across midnight'],
      ['0,58 0,23 1,2 * *', 'a gap across midnight between two consecutive days'],
      ['0,58 0,23 1,31 * *', 'the 31st at 23:58 then the next 1st at 00:00'],
    ])('rejects %s (%s)', (crontab) => {
      // act
      const result = convertCrontab(crontab);

      // assert
      expect(result).toEqual({ ok: false, message: 'fires more often than every 5 minutes' });
    });

    it.each(['0,58 0,23 1,15 * *', '0,58 0,23 31 1,2 *'])('accepts %s: no two consecutive days fire', (crontab) => {
      // act
      const result = convertCrontab(crontab);

      // assert
      expect(result.ok).toBe(true);
    });
  });

  describe('other rejections', () => {
    it.each([
      ['', 'expected 5 fields (minute hour day-of-month month day-of-week), got 0'],
      ['0 0 * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 4'],
      ['0 2 * * ? *', conversionMessages.awsSyntax],
      ['0 0 ? * MON', conversionMessages.awsSyntax],
      ['0 0 * * 1#2', conversionMessages.awsSyntax],
      ['0 0 15W * *', conversionMessages.awsSyntax],
      ['0 0 * * 5L', conversionMessages.awsSyntax],
      ['rate(5 minutes)', conversionMessages.awsSyntax],
      ['@every', 'unknown macro @every: use one of @yearly @annually @monthly @weekly @daily @midnight @hourly'],
      ['0 24 * * *', '24 is out of range for the hour field (0-23)'],
      ['0 0 0 * *', '0 is out of range for the day-of-month field (1-31)'],
      ['0 0 1 13 *', '13 is out of range for the month field (1-12)'],
      ['0 0 * * 8', '8 is out of range for the day-of-week field (0-7)'],
      ['0 0 * * fri-mon', 'reversed range fri-mon in the day-of-week field'],
      ['*/0 * * * *', 'invalid step in "*/0": the minute step must be 1-60'],
      ['0 0 * * funday', '"funday" is not a valid day-of-week value'],
      ['0 0 1 mon *', '"mon" is not a valid month value'],
      ['0,,5 * * * *', 'invalid minute field item ""'],
    ])('rejects %j', (crontab, message) => {
      // act
      const result = convertCrontab(crontab);

      // assert
      expect(result).toEqual({ ok: false, message });
    });
  });

  it.each(['0 0 1,15 * 1', '1,7,13,19,25,31 0,2,4,6,8,10,12,14,16,18,20,22 1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31 1,3,5,7,9,11 1,3,5'])(
    'emits expressions of at most 256 characters with exactly one ? for %s',
    (crontab) => {
      // act
      const result = convertCrontab(crontab);

      // assert
      expect(result.ok).toBe(true);
      for (const expression of result.ok ? result.expressions : []) {
        expect(expression.length).toBeLessThanOrEqual(256);
        expect(expression.split('?')).toHaveLength(2);
      }
    },
  );
});

describe('cadenceExpressions', () => {
  it('holds the fixed cadences of DESIGN §5', () => {
    // assert
    expect(cadenceExpressions).toEqual({
      daily: 'cron(0 2 * * ? *)',
      weekly: 'cron(0 3 ? * MON *)',
      monthly: 'cron(0 4 1 * ? *)',
    });
  });
});

describe('isValidTimeZone', () => {
  it.each(['UTC', 'Etc/UTC', 'America/New_York', 'Asia/Kolkata', 'Europe/London'])('accepts %s', (tz) => {
    // act / assert
    expect(isValidTimeZone(tz)).toBe(true);
  });

  it.each(['', 'Mars/Olympus_Mons', '+05:30', 'UTC+1', 'America/New York'])('rejects %j', (tz) => {
    // act / assert
    expect(isValidTimeZone(tz)).toBe(false);
  });
});
