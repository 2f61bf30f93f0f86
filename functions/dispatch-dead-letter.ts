import { composeDispatch } from './dispatch-composition.ts';
import { makeDeadLetterHandler } from './dispatch-handler.ts';

const { dispatch, logger } = composeDispatch('dispatch-dead-letter');

/** Scan DLQ consumer: marks the job and its schedule failed with the reason. */
export const handler = makeDeadLetterHandler(dispatch, logger);
