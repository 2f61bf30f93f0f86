import { describe, expect, it } from 'vitest';
import { ArtifactConfig, MetaConfig, SchedulesConfig, readConfig } from '../../shared/config/function-config.ts';

const triggers = {
  SCHEDULE_GROUP_NAME: 'scans',
  SCAN_QUEUE_ARN: 'arn:aws:sqs:eu-west-1:123456789012:scan',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
  SCHEDULER_DLQ_ARN: 'arn:aws:sqs:eu-west-1:123456789012:scheduler-dlq',
  CREDENTIAL_KEY_ARN: 'arn:aws:kms:eu-west-1:123456789012:key/0b7a8c52-4a55-4a1f-9d59-9e1f3f8a1c2d',
};

describe('function configuration read at cold start', () => {
  it('names every missing or malformed variable at once', () => {
    expect(() => readConfig(SchedulesConfig, { ...triggers, SCAN_QUEUE_ARN: 'not-an-arn' })).toThrow(
      'invalid configuration: TABLE_NAME, SCAN_QUEUE_ARN',
    );
    expect(() => readConfig(ArtifactConfig, {})).toThrow('invalid configuration: TABLE_NAME, ARTIFACT_BUCKET');
  });

  it('applies the defaults and splits the lists', () => {
    expect(
      readConfig(SchedulesConfig, { ...triggers, TABLE_NAME: 'scans', ALLOWED_ORIGINS: 'https://a.example, https://b.example,' }),
    ).toEqual({
      ...triggers,
      TABLE_NAME: 'scans',
      ALLOWED_ORIGINS: ['https://a.example', 'https://b.example'],
      SCHEDULE_QUOTA: 500,
      ALLOW_PRIVATE_TARGETS: false,
    });
    expect(readConfig(MetaConfig, { SCAN_RUNNERS: 'email_security' })).toEqual({
      ALLOWED_ORIGINS: [],
      SERVICE_VERSION: '0.1.0',
      SCAN_RUNNERS: ['email_security'],
      ALLOW_PRIVATE_TARGETS: false,
    });
  });

  it("keeps only the variables of the function's own schema", () => {
    expect(
      readConfig(ArtifactConfig, { TABLE_NAME: 'scans', ARTIFACT_BUCKET: 'artifacts', SCAN_QUEUE_URL: 'https://sqs.example/q' }),
    ).toEqual({
      TABLE_NAME: 'scans',
      ARTIFACT_BUCKET: 'artifacts',
    });
  });
});
