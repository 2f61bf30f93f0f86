/**
 * The snapshot's stand-in for `on-demand.ts` (layers/mailscan/build-snapshot.ts swaps it in): the
 * opt-in surfaces and the X.509 stack are not in the snapshot's script, so that every scan from
 * the snapshot does not read them at start-up (docs/mailscan-startup.md). A scan that needs one
 * loads the bundle's own `on-demand.js` beside the bundle the snapshot stands for
 * (lib/mailscan/on-demand.js; an ES module, through require: the snapshot's script has no dynamic
 * import()), whose loaders import the same chunks a scan from the bundle imports. That module
 * turns zod's JIT off before their schemas are built, as the bundle's scan command does.
 */
import type * as OnDemand from '../on-demand.ts';

let bundle: typeof OnDemand | undefined;

function fromBundle(): typeof OnDemand {
  // import.meta.url stands for the bundle's entry (set by the snapshot's main function).
  // node:module only now, not at import: loaded while the snapshot is built, it would sit in its heap.
  bundle ??= process.getBuiltinModule('node:module').createRequire(import.meta.url)('./on-demand.js') as typeof OnDemand;
  return bundle;
}

export const loadLeak: typeof OnDemand.loadLeak = () => fromBundle().loadLeak();
export const loadDiscover: typeof OnDemand.loadDiscover = () => fromBundle().loadDiscover();
export const loadRua: typeof OnDemand.loadRua = () => fromBundle().loadRua();
export const loadHeader: typeof OnDemand.loadHeader = () => fromBundle().loadHeader();
export const loadVmc: typeof OnDemand.loadVmc = () => fromBundle().loadVmc();
