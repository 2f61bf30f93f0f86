import { InvokeStore, type InvokeStoreBase } from '@aws/lambda-invoke-store';

/** Runs one invocation; everything it awaits sees only its own invocation-scoped state. */
export interface InvocationScope {
  run<T>(requestId: string, invoke: () => Promise<T>): Promise<T>;
  /** False when the process already had a single-invocation store: requests then share keys. */
  isolated: boolean;
}

/**
 * The local server is one execution environment handling overlapping invocations, as Lambda does
 * with AWS_LAMBDA_MAX_CONCURRENCY above 1. Setting it and running each request in the
 * InvokeStore's own async scope is what makes Powertools keep each request's logger keys
 * (request_id, tenant) apart instead of sharing one mutable set across requests.
 */
export async function makeInvocationScope(concurrency = 64): Promise<InvocationScope> {
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= String(concurrency);
  // The process has one store, made on first use: the AWS SDK asks for it on its first request,
  // and without the variable above it would be the single-invocation store that every request
  // shares. So the local runtime calls this before anything else (isolated() says if it worked).
  const store = await InvokeStore.getInstanceAsync(true);
  const requestIdKey = (store.constructor as typeof InvokeStoreBase).PROTECTED_KEYS.REQUEST_ID;
  return {
    run: (requestId, invoke) => store.run({ [requestIdKey]: requestId }, invoke),
    isolated: store.constructor.name === 'InvokeStoreMulti',
  };
}
