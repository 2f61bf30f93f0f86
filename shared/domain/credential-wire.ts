import * as z from 'zod';
import { CREDENTIAL_KINDS } from '../../lib/credential-kinds.ts';

// Apart from credential.ts (the request checks, which need lib/credential.ts and Node's crypto),
// so the UI bundles the answers' schemas alone.

export const CredentialKindSchema = z.enum(CREDENTIAL_KINDS);

/** A credential as the API shows it (DESIGN §16): never its secret. */
export const Credential = z.lazy(() =>
  z.object({
    alias: z.string(),
    kind: CredentialKindSchema,
    allowed_hosts: z.array(z.string()),
    description: z.string().nullable(),
    fingerprint: z.string().describe("the first 8 hex of the SHA-256 of the secret's primary value"),
    created_at: z.string(),
    updated_at: z.string(),
    last_used_at: z.string().nullable().describe('when a scan last had it decrypted'),
  }),
);
export type Credential = z.infer<typeof Credential>;

export const CredentialList = z.lazy(() => z.object({ items: z.array(Credential) }));
