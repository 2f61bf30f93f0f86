import { GetRoleCommand, type IAMClient } from '@aws-sdk/client-iam';
import { GetEmailIdentityCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { EnvironmentSettings } from './environment-settings.ts';

/**
 * The bootstrap version the stack's template requires (its CheckBootstrapVersion rule refuses 1-5),
 * read from the default qualifier's SSM parameter as CloudFormation does at deploy.
 */
export const REQUIRED_BOOTSTRAP_VERSION = 6;
export const BOOTSTRAP_VERSION_PARAMETER = '/cdk-bootstrap/hnb659fds/version';

/** One precondition of `cdk deploy` and what was found. */
export interface PreflightCheck {
  name: string;
  ok: boolean;
  /** What was found, and when not ok what the operator does about it. */
  message: string;
}

export interface PreflightClients {
  ssm: Pick<SSMClient, 'send'>;
  iam: Pick<IAMClient, 'send'>;
  ses: Pick<SESv2Client, 'send'>;
}

const errorName = (error: unknown) => (error instanceof Error ? error.name : 'UnknownError');

async function bootstrap(ssm: PreflightClients['ssm'], region: string): Promise<PreflightCheck> {
  const name = 'CDK bootstrap';
  try {
    const { Parameter } = await ssm.send(new GetParameterCommand({ Name: BOOTSTRAP_VERSION_PARAMETER }));
    const version = Number(Parameter?.Value);
    if (Number.isInteger(version) && version >= REQUIRED_BOOTSTRAP_VERSION) {
      return { name, ok: true, message: `bootstrap version ${version} in ${region}` };
    }
    return {
      name,
      ok: false,
      message: `bootstrap version ${Parameter?.Value} in ${region}; the stack needs ${REQUIRED_BOOTSTRAP_VERSION} or later: run npx cdk bootstrap`,
    };
  } catch (error) {
    if (errorName(error) === 'ParameterNotFound') {
      return { name, ok: false, message: `${region} is not bootstrapped (no ${BOOTSTRAP_VERSION_PARAMETER}): run npx cdk bootstrap` };
    }
    throw error;
  }
}

async function adversaryRole(iam: PreflightClients['iam'], roleName: string | null): Promise<PreflightCheck> {
  const name = 'adversary engine role';
  if (roleName === null) return { name, ok: true, message: 'none configured (adversaryEngineRoleName is null)' };
  try {
    const { Role } = await iam.send(new GetRoleCommand({ RoleName: roleName }));
    return { name, ok: true, message: `${roleName} exists (${Role?.Arn})` };
  } catch (error) {
    if (errorName(error) === 'NoSuchEntityException') {
      return {
        name,
        ok: false,
        message:
          `no IAM role ${roleName} in this account: the stack grants it sqs:SendMessage on the scan queue and ` +
          'CloudFormation refuses a policy naming a missing role. Create the role first, or set adversaryEngineRoleName to null in cdk.json',
      };
    }
    throw error;
  }
}

async function sesIdentity(ses: PreflightClients['ses'], identity: string, sender: string): Promise<PreflightCheck> {
  const name = 'SES sender identity';
  try {
    const found = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
    // VerificationStatus is SES's word on the identity (moto leaves VerifiedForSendingStatus false).
    if (found.VerificationStatus === 'SUCCESS')
      return { name, ok: true, message: `${identity} is verified; notifications come from ${sender}` };
    return {
      name,
      ok: false,
      message: `${identity} exists in SES but is not verified (${found.VerificationStatus ?? 'unknown'}): finish its DNS (DKIM) or email verification`,
    };
  } catch (error) {
    if (errorName(error) === 'NotFoundException') {
      return {
        name,
        ok: false,
        message: `no SES identity ${identity} in this region: create and verify it (aws sesv2 create-email-identity --email-identity ${identity}); until then no notification email is sent`,
      };
    }
    throw error;
  }
}

/**
 * The deploy preconditions of an environment that no synth can see (docs/deploy.md): the
 * account and region are bootstrapped at the version the template needs, the adversary engine's
 * role exists when one is named, and the notification sender's SES identity is verified. A call
 * that fails for another reason (no credentials, access denied) is reported as that check's failure.
 */
export async function runPreflight(settings: EnvironmentSettings, region: string, clients: PreflightClients): Promise<PreflightCheck[]> {
  const guarded = async (name: string, check: () => Promise<PreflightCheck>): Promise<PreflightCheck> => {
    try {
      return await check();
    } catch (error) {
      return {
        name,
        ok: false,
        message: `could not check (${errorName(error)}: ${error instanceof Error ? error.message : String(error)})`,
      };
    }
  };
  return Promise.all([
    guarded('CDK bootstrap', () => bootstrap(clients.ssm, region)),
    guarded('adversary engine role', () => adversaryRole(clients.iam, settings.adversaryEngineRoleName)),
    guarded('SES sender identity', () => sesIdentity(clients.ses, settings.notifications.senderIdentity, settings.notifications.sender)),
  ]);
}
