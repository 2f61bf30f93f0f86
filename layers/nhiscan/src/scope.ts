/**
 * The nhi scan's scope (DESIGN §20), the one schema the API (through the manifest) and the CLI's
 * --scope-json both parse. The target is the credential's alias, so the scope holds thresholds only.
 */
import * as z from 'zod';

export const DEFAULTS = { max_key_age_days: 90, max_unused_days: 90, new_key_grace_days: 7, expiry_warning_days: 30 } as const;

const days = (what: string, fallback: number) => z.int().min(1).max(3650).describe(`${what} (days, default ${fallback}).`).optional();

export const NhiScope = z.lazy(() =>
  z.strictObject({
    max_key_age_days: days('An AWS access key older than this is reported', DEFAULTS.max_key_age_days),
    max_unused_days: days('An AWS access key unused for longer than this is reported', DEFAULTS.max_unused_days),
    new_key_grace_days: z
      .int()
      .min(0)
      .max(365)
      .describe(`A key younger than this is not reported as unused (days, default ${DEFAULTS.new_key_grace_days}).`)
      .optional(),
    expiry_warning_days: days('A token expiring within this is reported', DEFAULTS.expiry_warning_days),
  }),
);
export type NhiScope = z.infer<typeof NhiScope>;

export interface Settings {
  maxKeyAgeDays: number;
  maxUnusedDays: number;
  newKeyGraceDays: number;
  expiryWarningDays: number;
}

export function settingsOf(scope: NhiScope): Settings {
  return {
    maxKeyAgeDays: scope.max_key_age_days ?? DEFAULTS.max_key_age_days,
    maxUnusedDays: scope.max_unused_days ?? DEFAULTS.max_unused_days,
    newKeyGraceDays: scope.new_key_grace_days ?? DEFAULTS.new_key_grace_days,
    expiryWarningDays: scope.expiry_warning_days ?? DEFAULTS.expiry_warning_days,
  };
}
