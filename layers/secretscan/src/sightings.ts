import { uint16s, uint32s } from '../../../lib/git/chunked-array.ts';

/** Where a blob was seen: the first (oldest walked) commit that holds it at this path. */
export interface BlobSighting {
  path: string;
  commit: string;
  /** The commit's author date, ISO 8601 in UTC. */
  authorDate: string;
}

/** Names longer than this are kept as strings aside (a tree may hold any name; real ones are short). */
const MAX_PACKED_NAME = 1024;
/** `nameLength` of a name kept aside. */
const LONG_NAME = 0xffff;
const SLAB_BYTES = 1 << 20;
/** Where a name starts is kept for one sighting in this many; the others add up lengths from it. */
const CHECKPOINT_BITS = 6;

/**
 * Every distinct blob the history walk met, by pack ordinal, with the paths it was seen at, in
 * about 20 bytes a sighting (10 and its name's UTF-8 bytes): the first sighting per ordinal and the
 * next of the same blob in chunked typed arrays, the names end to end in 1 MiB slabs, their
 * lengths, and where one name in 64 starts. Sightings come in walk order, so a sighting's commit
 * and directory are found from where each commit's, and each run of one directory's, start. A `Map` of an object and a path string per blob cost about 100 bytes a blob:
 * a walk of two million files held ~200 MB (issue 33 item 7). `get` builds the objects when asked,
 * one blob at a time.
 */
export class BlobSightings {
  /** Distinct blobs. */
  size = 0;
  /** Sightings held. */
  private count = 0;
  /** The highest ordinal seen, plus one (where `keys` stops). */
  private end = 0;
  /** Per pack ordinal: its first sighting, plus one (0: not seen). */
  private readonly first = uint32s();
  /** Per sighting: the next sighting of the same blob, plus one (0: the last; written only where there is one); its name's length. */
  private readonly next = uint32s();
  private readonly nameLength = uint16s();
  private readonly longNames = new Map<number, string>();
  /** The names' bytes end to end (a name may straddle two slabs), and where the name of every 64th sighting starts. */
  private readonly slabs: Buffer[] = [];
  private nameBytes = 0;
  private readonly checkpoints: number[] = [];
  private readonly directories: string[] = [];
  private readonly directoryIds = new Map<string, number>();
  /** Runs of sightings in one directory: where each starts, and its directory. */
  private readonly runStarts: number[] = [];
  private readonly runDirectories: number[] = [];
  /** Walked commits in walk order, and the first sighting each holds. */
  private readonly commits: { oid: string; authorDate: string }[] = [];
  private readonly commitStarts: number[] = [];

  /** Sightings that follow are of this commit (commits come in walk order). */
  startCommit(oid: string, authorDate: string): void {
    this.commits.push({ oid, authorDate });
    this.commitStarts.push(this.count);
  }

  /** The number of directory `path` ('' the root): sightings name their directory by it. */
  directory(path: string): number {
    let id = this.directoryIds.get(path);
    if (id === undefined) {
      id = this.directories.length;
      this.directories.push(path);
      this.directoryIds.set(path, id);
    }
    return id;
  }

  has(ordinal: number): boolean {
    return this.first.get(ordinal) !== 0;
  }

  /**
   * Records that blob `ordinal` is at `name` in `directory`, in the current commit, unless it was
   * seen at that path before; past `maxPaths` paths of one blob a new path is not kept. Returns
   * 'new' for a blob not seen before, 'dropped' for a path not kept, else 'kept'.
   */
  add(ordinal: number, directory: number, name: string, maxPaths: number): 'new' | 'kept' | 'dropped' {
    const head = this.first.get(ordinal);
    let last = -1;
    if (head !== 0) {
      let paths = 0;
      for (let sighting = head - 1; sighting !== -1; sighting = this.next.get(sighting) - 1) {
        if (this.directoryOf(sighting) === directory && this.nameOf(sighting) === name) return 'kept';
        paths += 1;
        last = sighting;
      }
      if (paths >= maxPaths) return 'dropped';
    }
    const sighting = this.count;
    this.count += 1;
    if (this.runDirectories.length === 0 || this.runDirectories[this.runDirectories.length - 1] !== directory) {
      this.runStarts.push(sighting);
      this.runDirectories.push(directory);
    }
    this.storeName(sighting, name);
    if (last === -1) {
      this.first.set(ordinal, sighting + 1);
      this.size += 1;
      if (ordinal + 1 > this.end) this.end = ordinal + 1;
      return 'new';
    }
    this.next.set(last, sighting + 1);
    return 'kept';
  }

  /** The blob's sightings, oldest first (undefined when the walk did not meet it). */
  get(ordinal: number): BlobSighting[] | undefined {
    const head = this.first.get(ordinal);
    if (head === 0) return undefined;
    const out: BlobSighting[] = [];
    for (let sighting = head - 1; sighting !== -1; sighting = this.next.get(sighting) - 1) {
      const directory = this.directories[this.directoryOf(sighting)];
      const name = this.nameOf(sighting);
      const commit = this.commits[lastAtOrBefore(this.commitStarts, sighting)];
      out.push({ path: directory === '' ? name : `${directory}/${name}`, commit: commit.oid, authorDate: commit.authorDate });
    }
    return out;
  }

  /** The blobs' ordinals, ascending (pack order). */
  *keys(): IterableIterator<number> {
    for (let ordinal = 0; ordinal < this.end; ordinal += 1) if (this.first.get(ordinal) !== 0) yield ordinal;
  }

  /** Bytes of the arrays and slabs (what grows with the walk; directories and commits aside). */
  get bytes(): number {
    return (
      this.first.byteLength +
      this.next.byteLength +
      this.nameLength.byteLength +
      this.slabs.length * SLAB_BYTES +
      (this.checkpoints.length + this.runStarts.length * 2) * 8
    );
  }

  private directoryOf(sighting: number): number {
    return this.runDirectories[lastAtOrBefore(this.runStarts, sighting)];
  }

  private storeName(sighting: number, name: string): void {
    if ((sighting & ((1 << CHECKPOINT_BITS) - 1)) === 0) this.checkpoints.push(this.nameBytes);
    const length = Buffer.byteLength(name);
    if (length > MAX_PACKED_NAME) {
      this.longNames.set(sighting, name);
      this.nameLength.set(sighting, LONG_NAME);
      return;
    }
    this.nameLength.set(sighting, length);
    const bytes = Buffer.from(name, 'utf8');
    let done = 0;
    while (done < length) {
      const offset = this.nameBytes % SLAB_BYTES;
      if (offset === 0 && this.slabs.length * SLAB_BYTES <= this.nameBytes) this.slabs.push(Buffer.allocUnsafeSlow(SLAB_BYTES));
      const piece = Math.min(length - done, SLAB_BYTES - offset);
      bytes.copy(this.slabs[Math.floor(this.nameBytes / SLAB_BYTES)], offset, done, done + piece);
      done += piece;
      this.nameBytes += piece;
    }
  }

  private nameOf(sighting: number): string {
    const length = this.nameLength.get(sighting);
    if (length === LONG_NAME) return this.longNames.get(sighting)!;
    let at = this.checkpoints[sighting >> CHECKPOINT_BITS];
    for (let before = (sighting >> CHECKPOINT_BITS) << CHECKPOINT_BITS; before < sighting; before += 1) {
      const skipped = this.nameLength.get(before);
      if (skipped !== LONG_NAME) at += skipped;
    }
    const slab = Math.floor(at / SLAB_BYTES);
    const offset = at % SLAB_BYTES;
    if (offset + length <= SLAB_BYTES) return this.slabs[slab].toString('utf8', offset, offset + length);
    // A name across two slabs.
    return Buffer.concat([this.slabs[slab].subarray(offset), this.slabs[slab + 1].subarray(0, offset + length - SLAB_BYTES)]).toString(
      'utf8',
    );
  }
}

/** The index of the last of the ascending `starts` at or before `value` (0 when none is). */
function lastAtOrBefore(starts: readonly number[], value: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}
