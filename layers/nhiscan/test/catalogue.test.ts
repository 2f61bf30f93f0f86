/** The catalogue is DESIGN §20's table, id for id and severity for severity, and the built executable prints it. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cachedEngineBuild } from '../../../test/helpers/engine-build-cache.ts';
import { catalogue } from '../src/catalogue.ts';

const run = promisify(execFile);

// DESIGN §20, copied by hand: a rule renamed or re-graded in the code fails here.
const DESIGN_20: Record<string, string> = {
  'nhi.credential.invalid': 'low',
  'nhi.exposure.leaked': 'critical',
  'nhi.aws.root_key': 'critical',
  'nhi.aws.key_age': 'medium',
  'nhi.aws.key_unused': 'medium',
  'nhi.aws.two_active_keys': 'low',
  'nhi.aws.admin_policy': 'critical',
  'nhi.aws.service_wildcard': 'high',
  'nhi.aws.privilege_escalation': 'high',
  'nhi.aws.long_lived_user_key': 'low',
  'nhi.github.no_expiry': 'medium',
  'nhi.github.expires_soon': 'low',
  'nhi.github.classic_pat': 'low',
  'nhi.github.privileged_scopes': 'high',
  'nhi.gitlab.privileged_scopes': 'high',
  'nhi.gitlab.admin_user': 'critical',
  'nhi.gitlab.no_expiry': 'medium',
  'nhi.slack.user_token': 'medium',
  'nhi.slack.privileged_scopes': 'high',
};

describe('the nhiscan catalogue', () => {
  it("is DESIGN §20's table", () => {
    expect(Object.fromEntries(catalogue.map((rule) => [rule.rule_id, rule.severity]))).toEqual(DESIGN_20);
  });

  it('is what the built executable prints, with its version', async () => {
    const bin = await cachedEngineBuild('nhiscan');
    const rules = await run(process.execPath, [bin, 'rules']);
    const version = await run(process.execPath, [bin, '--version']);

    expect(JSON.parse(rules.stdout)).toEqual({ scanner: { name: 'nhiscan', version: '0.1.0' }, rules: catalogue });
    expect(version.stdout).toBe('nhiscan 0.1.0\n');
  });

  it('refuses a target that is no alias (exit 2)', async () => {
    const bin = await cachedEngineBuild('nhiscan');
    const refused = await run(process.execPath, [bin, 'scan', '--', 'https://example.com']).catch(
      (error: { code: number; stderr: string }) => error,
    );

    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('not a credential alias') });
  });
});
