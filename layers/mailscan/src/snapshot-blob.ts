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

/**
 * The snapshot's script beside it (dist/snapshots/mailscan-snapshot.cjs): the CLI as one
 * CommonJS file, which `node --build-snapshot` runs to make a blob. The layer ships it instead of
 * the blob, which runs only on the node that built it: the runner makes a blob from it with its
 * own node (shared/adapters/runners/mailscan-snapshot.ts).
 */
export function snapshotScriptFor(bin: string): string {
  return join(dirname(bin), '..', 'snapshots', 'mailscan-snapshot.cjs');
}

/** The `node` arguments that make `blob` from the snapshot's `script`, at build time and in the runner alike. */
export function snapshotBuildArgs(script: string, blob: string): string[] {
  // --no-warnings: node warns that dgram, dns/promises and async_hooks are "not yet fully
  // verified" in a snapshot; none of them holds state at import (the CLI tests run through it).
  return ['--no-warnings', '--snapshot-blob', blob, '--build-snapshot', script];
}
