import { describe, expect, it } from 'vitest';
import { EnvironmentSelectionError, resolveEnvironment } from '../../infra/environment-settings.ts';
import { cdkContext } from './synthesized-stack.ts';

describe('environment selection', () => {
  it('rejects a missing or unknown -c env with the accepted names', () => {
    expect(() => resolveEnvironment(undefined, cdkContext.environments)).toThrow(EnvironmentSelectionError);
    expect(() => resolveEnvironment('staging', cdkContext.environments)).toThrow(/-c env=dev\|prod \(got "staging"\)/);
  });

  it('rejects settings that do not match the schema', () => {
    const broken = { ...cdkContext.environments, dev: { ...cdkContext.environments.dev, logRetentionDays: 10 } };
    expect(() => resolveEnvironment('dev', broken)).toThrow(/logRetentionDays/);
  });

  it('rejects a dispatch concurrency cap the SQS event source does not accept', () => {
    const broken = { ...cdkContext.environments, dev: { ...cdkContext.environments.dev, dispatch: { maxConcurrency: 1 } } };
    expect(() => resolveEnvironment('dev', broken)).toThrow(/dispatch\.maxConcurrency/);
  });
});
