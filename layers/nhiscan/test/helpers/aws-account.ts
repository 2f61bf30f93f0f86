/**
 * An AWS account on moto_server with moto's IAM policy evaluation on: the first user (`setup`,
 * allowed everything) is created while moto still lets actions through, and every later call,
 * the scanner's included, is signed and judged as AWS would.
 */
import {
  AddUserToGroupCommand,
  AttachGroupPolicyCommand,
  AttachUserPolicyCommand,
  CreateAccessKeyCommand,
  CreateGroupCommand,
  CreatePolicyCommand,
  CreateUserCommand,
  IAMClient,
  PutGroupPolicyCommand,
  PutUserPolicyCommand,
} from '@aws-sdk/client-iam';
import type { MotoServer } from '../../../../test/helpers/moto-server.ts';

export type PolicyDocument = { Version: '2012-10-17'; Statement: Record<string, unknown>[] };

export const policy = (...statements: Record<string, unknown>[]): PolicyDocument => ({ Version: '2012-10-17', Statement: statements });
export const allow = (action: string | string[], resource: string | string[] = '*', extra: Record<string, unknown> = {}) => ({
  Effect: 'Allow',
  Action: action,
  Resource: resource,
  ...extra,
});
/** What the scanner needs to read its own metadata (and nothing sensitive). */
export const SELF_READ = policy(allow(['iam:Get*', 'iam:List*']));

export interface AccessKey {
  access_key_id: string;
  secret_access_key: string;
}

export interface AwsAccount {
  iam: IAMClient;
  createUser(
    name: string,
    options?: { inline?: Record<string, PolicyDocument>; attached?: string[]; groups?: string[] },
  ): Promise<AccessKey>;
  createKey(user: string): Promise<AccessKey>;
  createPolicy(name: string, document: PolicyDocument): Promise<string>;
  createGroup(name: string, options?: { inline?: Record<string, PolicyDocument>; attached?: string[] }): Promise<void>;
}

export async function awsAccountOn(moto: MotoServer): Promise<AwsAccount> {
  await moto.reset();
  await moto.enforceAuthAfter(3);
  const bootstrap = new IAMClient(moto.clientConfig);
  await bootstrap.send(new CreateUserCommand({ UserName: 'setup' }));
  await bootstrap.send(
    new PutUserPolicyCommand({ UserName: 'setup', PolicyName: 'all', PolicyDocument: JSON.stringify(policy(allow('*'))) }),
  );
  const created = await bootstrap.send(new CreateAccessKeyCommand({ UserName: 'setup' }));
  bootstrap.destroy();
  const iam = new IAMClient({
    ...moto.clientConfig,
    credentials: { accessKeyId: created.AccessKey!.AccessKeyId!, secretAccessKey: created.AccessKey!.SecretAccessKey! },
  });
  const createKey = async (user: string): Promise<AccessKey> => {
    const answer = await iam.send(new CreateAccessKeyCommand({ UserName: user }));
    return { access_key_id: answer.AccessKey!.AccessKeyId!, secret_access_key: answer.AccessKey!.SecretAccessKey! };
  };
  return {
    iam,
    createKey,
    async createPolicy(name, document) {
      const answer = await iam.send(new CreatePolicyCommand({ PolicyName: name, PolicyDocument: JSON.stringify(document) }));
      return answer.Policy!.Arn!;
    },
    async createGroup(name, options = {}) {
      await iam.send(new CreateGroupCommand({ GroupName: name }));
      for (const [policyName, document] of Object.entries(options.inline ?? {})) {
        await iam.send(new PutGroupPolicyCommand({ GroupName: name, PolicyName: policyName, PolicyDocument: JSON.stringify(document) }));
      }
      for (const arn of options.attached ?? []) await iam.send(new AttachGroupPolicyCommand({ GroupName: name, PolicyArn: arn }));
    },
    async createUser(name, options = {}) {
      await iam.send(new CreateUserCommand({ UserName: name }));
      for (const [policyName, document] of Object.entries(options.inline ?? {})) {
        await iam.send(new PutUserPolicyCommand({ UserName: name, PolicyName: policyName, PolicyDocument: JSON.stringify(document) }));
      }
      for (const arn of options.attached ?? []) await iam.send(new AttachUserPolicyCommand({ UserName: name, PolicyArn: arn }));
      for (const group of options.groups ?? []) await iam.send(new AddUserToGroupCommand({ GroupName: group, UserName: name }));
      return createKey(name);
    },
  };
}
