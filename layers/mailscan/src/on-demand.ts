/**
 * The modules a scan loads only when it needs them: the opt-in surfaces (leak, discover, rua,
 * header) and the X.509 stack that validates a VMC. Every scan reaches them through these loaders,
 * never by a static import, so neither a plain scan from the bundle (docs/mailscan-startup.md) nor
 * the start-up snapshot pays for them: the snapshot's build swaps this module for
 * `bin/snapshot-on-demand.ts`, which loads the same loaders from the bundle's `on-demand.js` (an
 * entry of its own in the bundle for that reason), so these modules stay out of the snapshot's
 * script and heap, which every scan from it reads at start-up.
 */
// The scan command turned zod's JIT off already; the snapshot loads this module on its own.
import './cli/zod-jitless.ts';

export const loadLeak = () => import('./leak/run-leak.ts');
export const loadDiscover = () => import('./discover/run-discover.ts');
export const loadRua = () => import('./rua/run-rua.ts');
export const loadHeader = () => import('./header/run-header.ts');
export const loadVmc = () => import('./reputation/vmc.ts');
