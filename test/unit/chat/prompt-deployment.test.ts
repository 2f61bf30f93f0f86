import { describe, expect, it } from 'vitest';
import { findDuplicateSchedule } from '../../../shared/chat/duplicate-schedule.ts';
import { parseScanPrompt, promptExamples, PROMPT_EXAMPLES } from '../../../shared/chat/scan-prompt.ts';
import type { ScanType } from '../../../shared/domain/scan-types.ts';

describe('the Ask to scan prompt in a deployment with some runners', () => {
  const mailOnly = new Set<ScanType>(['email_security']);

  it('answers a scan type without a runner in words, naming the ones that can run', () => {
    const result = parseScanPrompt('schedule an SSL scan of www.example.com:443 daily', { runnable: mailOnly });
    expect(result).toMatchObject({
      kind: 'not_understood',
      message: 'SSL/TLS scans have no runner in this deployment. It can run: Email Security.',
    });
  });

  it('offers only examples it could send, and every one of them parses', () => {
    const examples = promptExamples(mailOnly);
    expect(examples.some((example) => /SSL|DAST|secrets|vulnerabilities/.test(example))).toBe(false);
    expect(examples).toContain('run Mail posture now');
    for (const example of examples.filter((e) => !/^(run|pause)/.test(e)))
      expect(parseScanPrompt(example, { runnable: mailOnly }).kind, example).toBe('request');
    const notUnderstood = parseScanPrompt('scan my website', { runnable: mailOnly });
    expect(notUnderstood.kind === 'not_understood' && notUnderstood.examples).toEqual(examples);
  });

  it('follows the runners as they arrive: with ssl added, the SSL example comes back', () => {
    const withSsl = new Set<ScanType>(['email_security', 'ssl']);
    expect(promptExamples(withSsl)).toContain('schedule an SSL scan of www.example.com:443 daily');
    expect(parseScanPrompt('schedule an SSL scan of www.example.com:443 daily', { runnable: withSsl }).kind).toBe('request');
    expect(promptExamples()).toEqual(PROMPT_EXAMPLES);
  });

  it('lists only runnable types when it asks which kind of scan', () => {
    const result = parseScanPrompt('scan example.com', { runnable: mailOnly });
    expect(result).toMatchObject({ message: 'Which kind of scan of example.com? Name one: Email Security.' });
  });
});

describe('the duplicate check', () => {
  const existing = [
    {
      id: 'sch_1',
      name: 'Mail',
      scan_type: 'email_security',
      target: 'example.com',
      cadence: 'daily',
      cron_expression: null,
      timezone: 'UTC',
    },
    {
      id: 'sch_2',
      name: 'Paris',
      scan_type: 'email_security',
      target: 'example.com',
      cadence: 'custom',
      cron_expression: '30 9 * * 1-5',
      timezone: 'Europe/Paris',
    },
  ];

  it('finds the same type, target and cadence whatever the name', () => {
    expect(findDuplicateSchedule({ scan_type: 'email_security', target: 'Example.com', cadence: 'daily' }, existing)?.id).toBe('sch_1');
    expect(
      findDuplicateSchedule(
        {
          scan_type: 'email_security',
          target: 'example.com',
          cadence: 'custom',
          cron_expression: '30  9 * * 1-5',
          timezone: 'Europe/Paris',
        },
        existing,
      )?.id,
    ).toBe('sch_2');
  });

  it('does not call another cadence, zone, target or type a duplicate', () => {
    const base = { scan_type: 'email_security', target: 'example.com', cadence: 'custom', cron_expression: '30 9 * * 1-5' };
    expect(findDuplicateSchedule({ ...base, timezone: 'UTC' }, existing)).toBeUndefined();
    expect(findDuplicateSchedule({ ...base, cadence: 'weekly' }, existing)).toBeUndefined();
    expect(findDuplicateSchedule({ ...base, target: 'example.org', timezone: 'Europe/Paris' }, existing)).toBeUndefined();
    expect(findDuplicateSchedule({ ...base, scan_type: 'ssl', timezone: 'Europe/Paris' }, existing)).toBeUndefined();
  });
});
