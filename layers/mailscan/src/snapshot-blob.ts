import { dirname, join } from 'node:path';

/**
 * Where the build puts the start-up snapshot of the CLI whose executable is `bin`:
 * dist/bin/mailscan → dist/snapshots/mailscan.blob (/opt/snapshots/mailscan.blob in the layer).
 * The build writes it (layers/mailscan/build-snapshot.ts), the runner passes it to `node` when it
 * is there and that node accepts it (docs/mailscan-startup.md).
 */
export function snapshotBlobFor(bin: string): string {
  return join(dirname(bin), '..', 'snapshots', 'mailscan.blob');
}
