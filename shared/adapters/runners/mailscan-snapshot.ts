import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { snapshotBlobFor } from '../../../layers/mailscan/src/index.ts';

/**
 * Whether the mailscan CLI starts from its start-up snapshot (docs/mailscan-startup.md): the
 * `node` options that make it so, or none. A snapshot works only with the exact node binary that
 * built it, and a node given one it rejects (another version, a truncated or garbled file) dies
 * before the CLI runs. So the blob is used only after a probe with this node accepts it:
 * `--version` from the snapshot with V8's checksum check on, once per node and blob for the life
 * of the process (the layer's files do not change under it). A missing or rejected blob means the
 * plain bundle, never a failed scan.
 */
const probes = new Map<string, Promise<boolean>>();

/** How long the probe may take before the snapshot counts as rejected. */
const PROBE_TIMEOUT_MS = 10_000;

export async function snapshotNodeOptions(node: string, bin: string): Promise<string[]> {
  const blob = snapshotBlobFor(bin);
  const key = `${node}\0${blob}`;
  let accepted = probes.get(key);
  if (!accepted) {
    accepted = probeSnapshot(node, bin, blob);
    probes.set(key, accepted);
  }
  return (await accepted) ? ['--snapshot-blob', blob] : [];
}

async function probeSnapshot(node: string, bin: string, blob: string): Promise<boolean> {
  try {
    await access(blob);
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    execFile(
      node,
      ['--verify-snapshot-checksum', '--snapshot-blob', blob, bin, '--version'],
      { env: { PATH: process.env.PATH ?? '' }, timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' },
      (error, stdout) => resolve(!error && /^mailscan \S+\n$/.test(stdout)),
    );
  });
}
