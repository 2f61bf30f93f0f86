import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { API_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/**
 * The EventBridge client of the event publisher, made at the first publish: dispatch's cold start
 * (and the dead-letter function, which never publishes) never loads it. SDK retries stay on
 * (standard mode, 3 attempts) for a failed call; the publisher retries the entries a call refused.
 * The request bounds cut a hung call inside the scan's deadline.
 */
export function lazyEventBridgeClient(): () => Promise<EventBridgeClient> {
  let client: Promise<EventBridgeClient> | undefined;
  return () =>
    (client ??= import('@aws-sdk/client-eventbridge').then(
      ({ EventBridgeClient: Client }) => new Client({ maxAttempts: 3, requestHandler: boundedRequestHandler(API_ATTEMPT) }),
    ));
}
