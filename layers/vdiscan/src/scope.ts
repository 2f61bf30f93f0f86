/**
 * The vdi scan's scope (DESIGN §21), the one schema the API (through the manifest) and the CLI's
 * --scope-json both parse. A `host:port` target probes that one port and ignores `ports`.
 */
import * as z from 'zod';

export const DEFAULT_PORTS: readonly number[] = [3389, 5900, 5901, 5902, 5903, 443];

export const VdiScope = z.lazy(() =>
  z.strictObject({
    /** The ports to probe for RDP, VNC and a desktop gateway; default 3389, 5900-5903 and 443. */
    ports: z.array(z.number().int().min(1).max(65535)).min(1).max(32).optional(),
    /** Run tlsscan's checks on RDP's TLS layer (`vdi.rdp.tls.*`); default true. */
    rdp_tls: z.boolean().optional(),
  }),
);
export type VdiScope = z.infer<typeof VdiScope>;
