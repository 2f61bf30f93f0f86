import { describe, expect, it } from 'vitest';
import { EnvironmentSelectionError, resolveEnvironment, senderIdentityCovers } from '../../infra/environment-settings.ts';
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
    const broken = {
      ...cdkContext.environments,
      dev: { ...cdkContext.environments.dev, dispatch: { maxConcurrency: 1, accountConcurrency: 1000 } },
    };
    expect(() => resolveEnvironment('dev', broken)).toThrow(/dispatch\.maxConcurrency/);
  });

  it('rejects a dispatch cap that, with the dead-letter function and an API burst, exceeds the account concurrency', () => {
    const prod = cdkContext.environments.prod;
    const broken = { ...cdkContext.environments, prod: { ...prod, dispatch: { maxConcurrency: 900, accountConcurrency: 1000 } } };
    expect(() => resolveEnvironment('prod', broken)).toThrow(
      /dispatch at 900 \(standard\) \+ 10 \(long\), the dead-letter function at 10 and an API burst of 400 need 1320 concurrent executions, more than dispatch.accountConcurrency 1000/,
    );
  });

  it('rejects a notification sender its SES identity does not authorise', () => {
    const withSender = (sender: string, senderIdentity: string) => ({
      ...cdkContext.environments,
      dev: { ...cdkContext.environments.dev, notifications: { sender, senderIdentity } },
    });
    expect(() => resolveEnvironment('dev', withSender('alerts@example.com', 'example.org'))).toThrow(/notifications\.senderIdentity/);
    expect(() => resolveEnvironment('dev', withSender('alerts@example.com', 'other@example.com'))).toThrow(/notifications\.senderIdentity/);
    expect(resolveEnvironment('dev', withSender('alerts@mail.example.com', 'example.com')).settings.notifications.sender).toBe(
      'alerts@mail.example.com',
    );
  });

  it('lets an SES identity authorise its own address, its domain and the domains below it, nothing else', () => {
    expect(senderIdentityCovers('alerts@example.com', 'Alerts@Example.com')).toBe(true);
    expect(senderIdentityCovers('example.com', 'alerts@example.com')).toBe(true);
    expect(senderIdentityCovers('example.com', 'alerts@eu.mail.example.com')).toBe(true);
    expect(senderIdentityCovers('example.com', 'alerts@badexample.com')).toBe(false);
    expect(senderIdentityCovers('mail.example.com', 'alerts@example.com')).toBe(false);
  });
});
