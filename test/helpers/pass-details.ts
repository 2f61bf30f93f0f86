import { expect } from 'vitest';

/**
 * Every check that passed says why (issue 41 item 4): its detail is never empty nor a bare "ok".
 * Engines' tests call it on a whole report's checks, so a new rule that passes in silence fails them.
 */
export function expectPassesSayWhy(checks: readonly { id: string; status: string; detail: string }[]): void {
  const passed = checks.filter((check) => check.status === 'pass');
  expect(passed.length, 'no check passed: nothing to judge').toBeGreaterThan(0);
  const silent = passed.filter((check) => check.detail.trim() === '' || /^ok\.?$/i.test(check.detail.trim())).map((check) => check.id);
  expect(silent, 'checks that passed without saying why').toEqual([]);
}
