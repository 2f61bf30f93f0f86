import { lookup as systemLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressProblem, internalName, type AddressPolicy } from './address-policy.ts';

/**
 * The target policy of DESIGN §11: an engine resolves the target's name once, vets every address,
 * and connects only to a vetted address (connect.ts), so a name cannot be re-resolved to somewhere
 * else between the check and the connection (DNS rebinding).
 */
export type TargetPolicy = Required<AddressPolicy>;

const on = (value: string | undefined): boolean => value === '1' || value === 'true';

/** `<PREFIX>_ALLOW_PRIVATE` and `<PREFIX>_ALLOW_LOOPBACK` (`1` or `true`), e.g. TLSSCAN_ALLOW_LOOPBACK=1. */
export function policyFromEnv(prefix: string, env: Readonly<Record<string, string | undefined>>): TargetPolicy {
  return { allowPrivate: on(env[`${prefix}_ALLOW_PRIVATE`]), allowLoopback: on(env[`${prefix}_ALLOW_LOOPBACK`]) };
}

/** An address that passed the policy. Only vetAddress and resolveTarget make one. */
export interface VettedAddress {
  readonly address: string;
  readonly family: 4 | 6;
  readonly vetted: true;
}

/** The target, or every address of it, is refused by the policy (or it resolves to nothing). */
export class TargetRefused extends Error {
  override readonly name = 'TargetRefused';
}

/** An IP literal as a VettedAddress, or TargetRefused naming why. */
export function vetAddress(ip: string, policy: TargetPolicy): VettedAddress {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) throw new TargetRefused(`${ip} is not an IP address`);
  const problem = addressProblem(bare, policy);
  if (problem) throw new TargetRefused(`${bare} is refused: ${problem}`);
  return { address: bare, family: family as 4 | 6, vetted: true };
}

export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

const defaultLookup: Lookup = (host) => systemLookup(host, { all: true, verbatim: true });

/**
 * The target's addresses, each vetted. An IP literal is vetted as is; `localhost` is 127.0.0.1 and
 * ::1 only when loopback is allowed; a name is resolved once. Any refused address refuses the whole
 * target (a name that resolves partly inside the deployment is not scanned at all), and a name with
 * no address is refused too, saying so.
 */
export async function resolveTarget(host: string, policy: TargetPolicy, lookup: Lookup = defaultLookup): Promise<VettedAddress[]> {
  const name = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(name)) return [vetAddress(name, policy)];
  const internal = internalName(name);
  if (internal === 'loopback') {
    if (!policy.allowLoopback) throw new TargetRefused(`${host} is this machine: loopback targets are not allowed here`);
    return [vetAddress('127.0.0.1', policy)];
  }
  if (internal === 'cloud metadata') throw new TargetRefused(`${host} is a cloud metadata service`);
  let answers: { address: string; family: number }[];
  try {
    answers = await lookup(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TargetRefused(
      code === 'ENOTFOUND' || code === 'ENODATA'
        ? `${host} does not resolve to an address`
        : `${host} could not be resolved (${code ?? String(error)})`,
    );
  }
  if (answers.length === 0) throw new TargetRefused(`${host} does not resolve to an address`);
  const vetted = answers.map((answer) => {
    try {
      return vetAddress(answer.address, policy);
    } catch (error) {
      throw new TargetRefused(
        `${host} resolves to ${answer.address}, which is refused: ${(error as Error).message.replace(/^.*refused: /, '')}`,
      );
    }
  });
  return [...new Map(vetted.map((entry) => [entry.address, entry])).values()];
}
