/**
 * The bounds of one scan (docs/secretscan.md); SECRETSCAN_* settings may lower or raise them. A
 * module of its own: the stack reads the pack bound to size the dispatch function's /tmp.
 */
export interface ScanBounds {
  /** Bytes the server may send in all (the pack). */
  maxPackBytes: number;
  /** Larger blobs are skipped and counted. */
  maxBlobBytes: number;
  /** Distinct files (blobs) across the walked history. */
  maxFiles: number;
  idleTimeoutMs: number;
}

/**
 * The pack goes to disk and memory stays bounded whatever its size (the pack reader's delta-base
 * cache, and a few dozen bytes per object), so the pack bound is set by disk and time: the
 * dispatch function's /tmp is sized from it (DISPATCH_EPHEMERAL_STORAGE_MIB), and a pack of 384 MiB
 * is about what the bench's rate scans in its 5 minutes (docs/secretscan.md). Past the time, the
 * deadline ends the scan with an error; past the disk, the bound does.
 */
export const DEFAULT_BOUNDS: ScanBounds = {
  maxPackBytes: 384 * 1024 * 1024,
  maxBlobBytes: 1024 * 1024,
  maxFiles: 200_000,
  idleTimeoutMs: 30_000,
};
