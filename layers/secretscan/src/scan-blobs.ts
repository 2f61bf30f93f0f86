import { matchesGlob } from 'node:path';
import type { ClonedRepository } from '../../../lib/git/clone.ts';
import { decodeBlob, type BlobTriage } from './blob-triage.ts';
import { detectSecrets } from './detect.ts';
import { eventLoopTurns } from '../../../lib/git/event-loop-turns.ts';
import type { BlobSighting, HistoryWalk } from './history.ts';
import { entropyGuardForPath, isBinary, looksMinified, type EntropyGuard } from './path-guards.ts';
import { digestSecret, type SecretDigest } from './secret-evidence.ts';

export interface SecretLocation {
  path: string;
  line: number;
  commit: string;
  author_date: string;
  in_head: boolean;
}

/** One secret value found by one rule, with every place it was seen. */
export interface FoundSecret {
  ruleId: string;
  kind: string;
  digest: SecretDigest;
  locations: SecretLocation[];
}

export interface BlobScanStats {
  blobsScanned: number;
  bytesScanned: number;
  skippedBinary: number;
  skippedTooLarge: number;
  skippedIgnoredPath: number;
  /** Blobs the entropy rule skipped, by guard. */
  entropyGuarded: Record<EntropyGuard, number>;
}

export interface BlobScanOptions {
  maxBlobBytes: number;
  pathsIgnore: readonly string[];
  signal: AbortSignal;
  /** Called after each blob, for progress lines. */
  onBlob?: (stats: BlobScanStats) => void;
  /** What the indexing pass learnt of each blob: the blobs that cannot hold a secret are not read again. */
  triage?: BlobTriage;
}

export interface BlobScanResult {
  secrets: FoundSecret[];
  stats: BlobScanStats;
  /** Set when the deadline stopped the scan before every blob was read. */
  unfinished?: { scanned: number; total: number };
}

/**
 * Runs the rules over every distinct blob of the walk once, in pack order (a delta's base was read
 * just before it, so it is still in the pack reader's cache). A blob the indexing pass already
 * found nothing to look for in (`triage`) is not read again; a secret found in a
 * blob is placed at every path that blob had. The entropy rule runs when at least one of those paths is
 * unguarded, and its findings keep only the unguarded paths.
 */
export async function scanBlobs(repo: ClonedRepository, walk: HistoryWalk, options: BlobScanOptions): Promise<BlobScanResult> {
  const stats: BlobScanStats = {
    blobsScanned: 0,
    bytesScanned: 0,
    skippedBinary: 0,
    skippedTooLarge: 0,
    skippedIgnoredPath: 0,
    entropyGuarded: { lock_file: 0, minified: 0, test_fixture: 0 },
  };
  const found = new Map<string, FoundSecret>();
  const total = walk.blobs.size;
  const { store } = repo;
  let index = 0;
  const turn = eventLoopTurns();
  // Pack order (keys are ascending).
  for (const ordinal of walk.blobs.keys()) {
    await turn();
    if (options.signal.aborted) return { secrets: [...found.values()], stats, unfinished: { scanned: index, total } };
    index += 1;
    const oid = store.oidOf(ordinal);
    const allSightings = walk.blobs.get(ordinal)!;
    const sightings = allSightings.filter(({ path }) => !options.pathsIgnore.some((glob) => matchesGlob(path, glob)));
    if (sightings.length === 0) {
      stats.skippedIgnoredPath += 1;
      continue;
    }
    const size = store.sizeOf(oid);
    if (size > options.maxBlobBytes) {
      stats.skippedTooLarge += 1;
      continue;
    }
    // The indexing pass's look at the blob, when it had one; else the blob is read here.
    const verdict = options.triage?.verdict(ordinal);
    const blob = verdict ? undefined : store.read(oid, 'blob');
    if (verdict ? verdict.binary : isBinary(blob!)) {
      stats.skippedBinary += 1;
      continue;
    }
    const text = blob && decodeBlob(blob);
    const minified = verdict ? verdict.minified : looksMinified(text!);
    const guards = sightings.map(({ path }) => (minified ? 'minified' : entropyGuardForPath(path)));
    const unguarded = sightings.filter((_, at) => guards[at] === null);
    if (unguarded.length === 0) stats.entropyGuarded[guards[0]!] += 1;
    // A blob the pass found nothing to look for in gives nothing whatever its paths (mayHoldSecrets).
    const matches =
      verdict && !verdict.mayHoldSecrets
        ? []
        : await detectSecrets(sightings[0].path, text ?? decodeBlob(store.read(oid, 'blob')), { entropy: unguarded.length > 0 });
    stats.blobsScanned += 1;
    stats.bytesScanned += size;
    for (const match of matches) {
      const places: BlobSighting[] = match.ruleId === 'secret.generic_high_entropy' ? unguarded : sightings;
      const digest = digestSecret(match.value);
      const key = `${match.ruleId}\u0000${digest.sha256}`;
      let secret = found.get(key);
      if (!secret) found.set(key, (secret = { ruleId: match.ruleId, kind: match.kind, digest, locations: [] }));
      for (const place of places) {
        secret.locations.push({
          path: place.path,
          line: match.line,
          commit: place.commit,
          author_date: place.authorDate,
          in_head: walk.inHead(ordinal, place.path),
        });
      }
    }
    options.onBlob?.(stats);
  }
  return { secrets: [...found.values()].map(withUniqueLocations), stats };
}

/**
 * One location per path and line: the oldest commit that held it there (where the secret came in),
 * and `in_head` when any version of the file at the branch's tip still holds it.
 */
function withUniqueLocations(secret: FoundSecret): FoundSecret {
  const byPlace = new Map<string, SecretLocation>();
  for (const location of secret.locations) {
    const key = `${location.path}\u0000${location.line}`;
    const known = byPlace.get(key);
    if (!known) byPlace.set(key, { ...location });
    else {
      if (location.author_date < known.author_date) Object.assign(known, { commit: location.commit, author_date: location.author_date });
      known.in_head ||= location.in_head;
    }
  }
  return { ...secret, locations: [...byPlace.values()] };
}
