import { composeDispatch } from './dispatch-composition.ts';
import { makeDispatchHandler } from './dispatch-handler.ts';

const { dispatch, logger, metrics } = composeDispatch('dispatch');

/** Scan queue consumer: fires and scan messages (DESIGN §5). */
export const handler = makeDispatchHandler(dispatch, logger, metrics);
