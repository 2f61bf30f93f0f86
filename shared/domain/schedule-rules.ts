import { cadenceExpressions, convertCrontab, isValidTimeZone } from './cron/crontab.ts';
import { ValidationError } from './errors.ts';
import { validateScanSubject, type SubjectRules } from './scan-subject.ts';
import type { ScanType } from './scan-types.ts';
import type { Cadence, ScheduleCreateRequest } from './schedule.ts';
import type { Trigger } from './trigger.ts';
import type { Scope } from './scope.ts';

/** The writable fields of a schedule after defaults: the input of the rules below. */
export interface ScheduleFields {
  name: string;
  description: string;
  scan_type: ScanType;
  target: string;
  targets: string[];
  scope: Scope;
  cadence: Cadence;
  cron_expression: string | null;
  timezone: string;
  enabled: boolean;
}

/** Fields that passed every cross-field rule, normalised, with the trigger they emit. */
export interface ValidSchedule extends ScheduleFields {
  trigger_definition: Trigger;
}

/**
 * Applies the cross-field rules of DESIGN §4–5 (the scan subject: targets and scope per scan type;
 * cadence/cron/timezone) and converts the cadence to EventBridge expressions. Throws one
 * ValidationError listing every problem, so a client fixes them in one round.
 */
export async function validateScheduleFields(fields: ScheduleFields, options: SubjectRules = {}): Promise<ValidSchedule> {
  const { subject, issues } = await validateScanSubject(fields, options);

  let expressions: string[] = [];
  if (fields.cadence === 'custom') {
    if (fields.cron_expression === null) {
      issues.push({ field: 'cron_expression', message: 'is required when cadence is custom' });
    } else {
      const converted = convertCrontab(fields.cron_expression);
      if (converted.ok) expressions = converted.expressions;
      else issues.push({ field: 'cron_expression', message: converted.message });
    }
    if (!isValidTimeZone(fields.timezone)) issues.push({ field: 'timezone', message: 'must be an IANA time zone such as Europe/Paris' });
  } else {
    if (fields.cron_expression !== null) issues.push({ field: 'cron_expression', message: 'is allowed only when cadence is custom' });
    if (fields.timezone !== 'UTC')
      issues.push({ field: 'timezone', message: `is allowed only when cadence is custom (${fields.cadence} runs in UTC)` });
    expressions = [cadenceExpressions[fields.cadence]];
  }

  if (issues.length > 0) throw new ValidationError('the schedule is not valid', issues);
  return {
    ...fields,
    target: subject.target,
    targets: subject.targets,
    trigger_definition: { expressions, timezone: fields.timezone },
  };
}

/** A create request with the defaults of DESIGN §4 applied, through the rules above. */
export function validateCreateRequest(input: ScheduleCreateRequest, options: SubjectRules = {}): Promise<ValidSchedule> {
  return validateScheduleFields(
    {
      name: input.name,
      description: input.description ?? '',
      scan_type: input.scan_type,
      target: input.target,
      targets: input.targets ?? [],
      scope: input.scope ?? {},
      cadence: input.cadence,
      cron_expression: input.cron_expression ?? null,
      timezone: input.timezone ?? 'UTC',
      enabled: input.enabled ?? true,
    },
    options,
  );
}
