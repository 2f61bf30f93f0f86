import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured logger. Messages are static lowercase phrases; data goes in fields, with the
 * correlation keys `tenant`, `schedule_id`, `scan_id`. Never log a session token or an operator key.
 */
export function makeLogger(serviceName: string): Logger {
  return new Logger({ serviceName, logLevel: (process.env.LOG_LEVEL ?? 'INFO') as 'INFO' });
}
