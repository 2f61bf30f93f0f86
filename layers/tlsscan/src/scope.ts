/**
 * The ssl scan's scope (DESIGN §12), the one schema the API (through this engine's public entry)
 * and the CLI's --scope-json both parse. Every field is optional; defaults depend on the port.
 */
import * as z from 'zod';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

export const TlsScope = z.lazy(() =>
  z.strictObject({
    /** The plaintext protocol to upgrade first; default from the port (25/587 smtp, 143 imap, 110 pop3, 3389 rdp). */
    starttls: z.enum(['smtp', 'imap', 'pop3', 'rdp', 'none']).optional(),
    /** The server name to send and to match the certificate against; default the target host. */
    sni: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9*._-]+$/, 'must be a host name')
      .optional(),
    /** Request `/` over HTTPS and check its headers (HSTS); default true on port 443. */
    http: z.boolean().optional(),
    /** PEM trust anchors added to Mozilla's roots, for a private PKI. */
    extra_roots: z.string().max(15_000).regex(PEM_CERTIFICATE, 'must hold at least one PEM certificate').optional(),
  }),
);
export type TlsScope = z.infer<typeof TlsScope>;
