import { NotifierConfig, readConfig } from '../shared/config/function-config.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { awsNotifierAdapters, composeNotifier } from './notifier-composition.ts';

const config = readConfig(NotifierConfig);
const logger = makeLogger('notifier');

/** Notification queue consumer: fans events out to tenants' rules and delivers them (DESIGN §15). */
export const handler = composeNotifier(config, awsNotifierAdapters(config), logger).handler;
