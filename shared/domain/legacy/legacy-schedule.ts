/**
 * Legacy schedules as the Django application stores them (DESIGN §9): django-tenants keeps one
 * PostgreSQL schema per tenant, django-celery-beat the periodic tasks that fire them.
 */

/** `scope.source_legacy_model` of a migrated row: the Django model it came from. */
export const LEGACY_MODELS = ['secretscan.schedule', 'network.continuousschedule'] as const;
export type LegacyModel = (typeof LEGACY_MODELS)[number];

/** A `django_celery_beat_crontabschedule` row: celery crontab fields, as text. */
export interface LegacyCrontab {
  minute: string;
  hour: string;
  day_of_week: string;
  day_of_month: string;
  month_of_year: string;
  timezone: string;
}

/** A `django_celery_beat_intervalschedule` row. */
export interface LegacyInterval {
  every: number;
  /** `days` `hours` `minutes` `seconds` `microseconds`. */
  period: string;
}

/** A `django_celery_beat_periodictask` row with its crontab or interval joined in. */
export interface LegacyPeriodicTask {
  id: number;
  name: string;
  task: string;
  enabled: boolean;
  one_off: boolean;
  crontab: LegacyCrontab | null;
  interval: LegacyInterval | null;
}

interface LegacyScheduleBase {
  /** The legacy primary key, as `scope.source_legacy_id` carries it. */
  id: string;
  name: string;
  created_at: string | null;
  /** Null when `periodic_task_id` is null or points at no task. */
  task: LegacyPeriodicTask | null;
}

/** `secretscan_schedule`. */
export interface LegacySecretScanSchedule extends LegacyScheduleBase {
  model: 'secretscan.schedule';
  repository_url: string;
  scan_options: unknown;
}

/** `network_continuousschedule`. */
export interface LegacyNetworkSchedule extends LegacyScheduleBase {
  model: 'network.continuousschedule';
  target: string;
  ports: string | null;
}

export type LegacySchedule = LegacySecretScanSchedule | LegacyNetworkSchedule;
