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
const SLAB_BITS = 20;
const SLAB_BYTES = 1 << SLAB_BITS;

/**
 * Every distinct blob the history walk met, by pack ordinal, with the paths it was seen at, in
 * about 30 bytes a sighting: chunked typed arrays (its directory's number, where its name's UTF-8
 * bytes are, the next sighting of the same blob) and the names side by side in 1 MiB slabs.
 * Commits are numbered in walk order and a sighting's commit is found from where each commit's
 * sightings start. A `Map` of an object and a path string per blob cost about 100 bytes a blob:
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
  /** Per sighting: the next sighting of the same blob, plus one (0: the last); its directory; its name. */
  private readonly next = uint32s();
  private readonly directoryOf = uint32s();
  private readonly nameAt = uint32s();
  private readonly nameLength = uint16s();
  private readonly longNames = new Map<number, string>();
  private readonly slabs: Buffer[] = [];
  private used = SLAB_BYTES;
  private readonly directories: string[] = [];
  private readonly directoryIds = new Map<string, number>();
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
        if (this.directoryOf.get(sighting) === directory && this.nameOf(sighting) === name) return 'kept';
        paths += 1;
        last = sighting;
      }
      if (paths >= maxPaths) return 'dropped';
    }
    const sighting = this.count;
    this.count += 1;
    this.directoryOf.set(sighting, directory);
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
      const directory = this.directories[this.directoryOf.get(sighting)];
      const name = this.nameOf(sighting);
      const commit = this.commits[this.commitOf(sighting)];
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
      this.directoryOf.byteLength +
      this.nameAt.byteLength +
      this.nameLength.byteLength +
      this.slabs.length * SLAB_BYTES
    );
  }

  private commitOf(sighting: number): number {
    let low = 0;
    let high = this.commitStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.commitStarts[middle] <= sighting) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private storeName(sighting: number, name: string): void {
    const length = Buffer.byteLength(name);
    if (length > MAX_PACKED_NAME) {
      this.longNames.set(sighting, name);
      return;
    }
    if (this.used + length > SLAB_BYTES) {
      // Addresses are 32 bits: 4 GiB of names is far past any memory the scan has.
      if (this.slabs.length >= 2 ** 32 / SLAB_BYTES) throw new RangeError("the walk's file names pass 4 GiB");
      this.slabs.push(Buffer.allocUnsafeSlow(SLAB_BYTES));
      this.used = 0;
    }
    this.slabs[this.slabs.length - 1].write(name, this.used, 'utf8');
    this.nameAt.set(sighting, (this.slabs.length - 1) * SLAB_BYTES + this.used);
    this.nameLength.set(sighting, length);
    this.used += length;
  }

  private nameOf(sighting: number): string {
    const long = this.longNames.get(sighting);
    if (long !== undefined) return long;
    const at = this.nameAt.get(sighting);
    const slab = this.slabs[Math.floor(at / SLAB_BYTES)];
    const offset = at % SLAB_BYTES;
    return slab.toString('utf8', offset, offset + this.nameLength.get(sighting));
  }
}
