/**
 * The vdi scan's scope (DESIGN §21), the one schema the API (through the manifest) and the CLI's
 * --scope-json both parse. A `host:port` target probes that one port and ignores `ports`.
 */
import * as z from 'zod';

export const DEFAULT_PORTS: readonly number[] = [3389, 5900, 5901, 5902, 5903, 443];
export const MAX_PORTS = 32;

const PORT_TEXT = /^\s*\d{1,5}(\s*-\s*\d{1,5})?(\s*[,\s]\s*\d{1,5}(\s*-\s*\d{1,5})?)*\s*$/;

/** The ports a `ports` value names, in order, once each; throws with a message the API shows. */
export function portsOf(spec: string | readonly number[]): number[] {
  const out = new Set<number>();
  const add = (port: number): void => {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`port ${port} is not 1-65535`);
    out.add(port);
    if (out.size > MAX_PORTS) throw new Error(`at most ${MAX_PORTS} ports`);
  };
  if (typeof spec !== 'string') {
    for (const port of spec) add(port);
    return [...out];
  }
  if (!PORT_TEXT.test(spec)) throw new Error('ports are numbers and ranges, e.g. "3389,5900-5903,443"');
  for (const part of spec.split(/[,\s]+/).filter(Boolean)) {
    const [first, last] = part.split('-').map(Number);
    if (last === undefined) add(first);
    else if (last < first) throw new Error(`the range ${part} runs backwards`);
    else if (last - first >= MAX_PORTS) throw new Error(`at most ${MAX_PORTS} ports`);
    else for (let port = first; port <= last; port++) add(port);
  }
  return [...out];
}

export const VdiScope = z.lazy(() =>
  z.strictObject({
    /** Ports to probe for RDP, VNC and a desktop gateway ("3389,5900-5903,443" or a list); default 3389, 5900-5903, 443; at most 32. */
    ports: z
      .union([z.string().max(400), z.array(z.number().int()).min(1).max(MAX_PORTS)])
      .superRefine((value, ctx) => {
        try {
          portsOf(value);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
        }
      })
      .optional(),
    /** Run tlsscan's checks on RDP's TLS layer (`vdi.rdp.tls.*`); default true. */
    rdp_tls: z.boolean().optional(),
  }),
);
export type VdiScope = z.infer<typeof VdiScope>;
