import { basename, dirname, join } from 'node:path';

/**
 * Where an engine's build puts the start-up snapshot of the CLI whose executable is `bin`, named
 * after it: dist/bin/mailscan → dist/snapshots/mailscan.blob (/opt/snapshots/mailscan.blob in the
 * layer). The engine's build writes it, the one runner passes it to `node` when it is there and
 * that node accepts it (docs/mailscan-startup.md); shared by both, so it lives here.
 */
export function snapshotBlobFor(bin: string): string {
  return join(dirname(bin), '..', 'snapshots', `${basename(bin)}.blob`);
}

/**
 * The snapshot's script beside it (dist/snapshots/mailscan-snapshot.cjs): the CLI as one
 * CommonJS file, which `node --build-snapshot` runs to make a blob. The layer ships it instead of
 * the blob, which runs only on the node that built it: the runner makes a blob from it with its
 * own node (shared/adapters/runners/startup-snapshot.ts).
 */
export function snapshotScriptFor(bin: string): string {
  return join(dirname(bin), '..', 'snapshots', `${basename(bin)}-snapshot.cjs`);
}

/** The `node` arguments that make `blob` from the snapshot's `script`, at build time and in the runner alike. */
export function snapshotBuildArgs(script: string, blob: string): string[] {
  // --no-warnings: node warns that dgram, dns/promises and async_hooks are "not yet fully
  // verified" in a snapshot; none of them holds state at import (the CLI tests run through it).
  return ['--no-warnings', '--snapshot-blob', blob, '--build-snapshot', script];
}
