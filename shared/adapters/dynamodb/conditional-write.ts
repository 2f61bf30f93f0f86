import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/**
 * A conditional write and what a refused condition means to its caller: `write`'s result when
 * DynamoDB accepts it; when it refuses the condition, `refused`'s (a `false`, a `null`) or what
 * `refused` throws (a ConflictError, a NotFoundError). Any other error propagates unchanged.
 */
export async function conditionalWrite<T, R>(write: () => Promise<T>, refused: () => R | Promise<R>): Promise<T | R> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return refused();
    throw error;
  }
}
