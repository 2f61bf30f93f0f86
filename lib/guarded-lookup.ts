import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressProblem, STRICT_POLICY, type AddressPolicy } from './address-policy.ts';

/** A connection refused because the address it resolved to lies inside the deployment. */
export class InternalAddressError extends Error {
  readonly code = 'EINTERNALADDRESS';
}

/**
 * The connect-time half of the address policy for node:http(s) (docs/hostile-input.md): a `lookup`
 * for `net.connect`, `tls.connect` and `http(s).request` that resolves the host and refuses the
 * connection when any address it would use is refused by `policy`. The API already refused IP
 * literals and internal names; this catches names that resolve inside (DNS rebinding included,
 * since the check runs on the addresses the socket then uses). The service's webhook poster passes
 * it as `lookup`; engines vet once and connect to the vetted address instead (target-policy.ts).
 */
export function guardedLookup(policy: AddressPolicy = STRICT_POLICY, resolve: typeof systemLookup = systemLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list: LookupAddress[] = addresses;
      const refused = list
        .map((entry) => {
          const problem = addressProblem(entry.address, policy);
          return problem && `must not point inside the deployment: ${entry.address} is ${problem}`;
        })
        .find((problem) => problem !== null);
      if (refused || list.length === 0) return callback(new InternalAddressError(`${hostname}: ${refused ?? 'no address'}`), '', 0);
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
