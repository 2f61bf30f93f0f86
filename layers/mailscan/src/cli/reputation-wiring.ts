import type { RunReputation } from '../scan/scan-domain.ts';

/**
 * The seam to the reputation surface (reputation/index.ts, built alongside). Until it is wired in,
 * the surface reports itself as an error rather than pretending to be clean.
 */
export const runReputation: RunReputation = async () => ({
  status: 'error',
  data: {},
  findings: [],
  errors: [{ surface: 'reputation', check: 'reputation', message: 'the reputation surface is not wired into this build yet' }],
});

/** The VMC roots reputation trusts: the bundled BIMI roots. */
export function vmcRoots(): string[] {
  return [];
}
