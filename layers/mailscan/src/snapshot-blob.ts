/** mailscan's start-up snapshot files: the kit's naming (lib/startup-snapshot.ts), the build's and the runner's alike. */
export { snapshotBlobFor, snapshotBuildArgs, snapshotScriptFor } from '../../../lib/startup-snapshot.ts';
