/**
 * The entry of the mailscan start-up snapshot (docs/mailscan-startup.md): built into a single
 * CommonJS file and run once by `node --build-snapshot`, which initialises every module of a scan
 * (zod's schemas, the public suffix table, the catalogue) and saves the heap. A scan started with
 * `node --snapshot-blob mailscan.blob /opt/bin/mailscan scan ...` then begins from that heap and
 * runs only the main function below. Module top levels must therefore only build data: nothing
 * that holds a handle or reads the environment, the arguments or the clock at import.
 */
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startupSnapshot } from 'node:v8';
// zod reads its jitless setting when a schema is built: first, as in main.ts's scan command.
import '../cli/zod-jitless.ts';
// What every scan loads: the scan command, the reputation surface, the settings' parsers. Not
// the opt-in surfaces (discover, leak, rua, header) nor the X.509 stack: they are not even in this
// script (on-demand.ts becomes snapshot-on-demand.ts, which loads them from the bundle), since a
// larger script and heap cost every scan from the snapshot their reading and deserialisation.
// What the kit's frame loads on demand for a scan is loaded here, so that it is in the heap saved:
// the scan command and its settings, the scope's schema, the catalogue, the report's module.
import '../cli/scan-command.ts';
import '../cli/scan-settings.ts';
import '../scope.ts';
import '../catalogue.ts';
import '../../../../lib/report.ts';
import '../../../../lib/target-policy.ts';
import '../reputation/index.ts';
import '../config/config-file.ts';
import '../reputation/config-from-env.ts';
import '../external/opt-in-config.ts';
import { engineMain } from '../../../engine-kit/src/cli.ts';
import { mailscanDefinition } from '../cli/definition.ts';
import { warmUp } from '../cli/snapshot-warm-up.ts';

declare global {
  /** The bundle's own URL, which `import.meta.url` stands for in this CommonJS build. */
  var __mailscanModuleUrl: string | undefined;
}

// Compiles what every scan runs before its first query and after its last, into the heap saved.
warmUp();

startupSnapshot.setDeserializeMainFunction(() => {
  // argv[1] is the executable the runner names (bin/mailscan); the snapshot stands for the bundle
  // beside it (lib/mailscan/mailscan.js), so files found relative to it (the VMC roots) are found.
  globalThis.__mailscanModuleUrl = pathToFileURL(resolve(dirname(process.argv[1] ?? '.'), '../lib/mailscan/mailscan.js')).href;
  void engineMain(mailscanDefinition);
});
