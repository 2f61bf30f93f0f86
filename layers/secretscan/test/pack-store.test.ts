import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDelta, CorruptPack } from '../../../lib/git/delta.ts';
import { objectHeader } from './pack-writer.ts';
import { walkHistory } from '../src/history.ts';
import { ObjectTooLarge, PackStore, type PackStoreOptions } from '../../../lib/git/pack-store.ts';
import { PackFileWriter } from '../../../lib/git/upload-pack.ts';
import { gitAvailable, TestRepository } from '../../../test/helpers/git-http-server.ts';

/**
 * The pack reader against packs made by real git (`git pack-objects`): every object git lists is
 * found under its id, which the reader computes by hashing what it resolved, so a wrong delta
 * cannot pass. OFS and REF deltas, long chains read back with a cache too small to help, a REF
 * delta whose base comes after it, and damaged packs (a flipped byte, a cut) refused with an error.
 */

const options = (overrides: Partial<PackStoreOptions> = {}): PackStoreOptions => ({
  cacheBytes: 8 << 20,
  maxObjectBytes: 8 << 20,
  signal: AbortSignal.timeout(60_000),
  ...overrides,
});

/** `git verify-pack -v`: every object with its type, and how many objects sit at each delta depth. */
function verifyPack(repo: TestRepository, pack: string): { objects: Map<string, string>; chains: Map<number, number> } {
  repo.git('index-pack', pack);
  const out = repo.git('verify-pack', '-v', pack.replace(/\.pack$/, '.idx'));
  const objects = new Map<string, string>();
  const chains = new Map<number, number>();
  for (const line of out.split('\n')) {
    const object = /^([0-9a-f]{40}) (commit|tree|blob|tag) /.exec(line);
    if (object) objects.set(object[1], object[2]);
    const chain = /^chain length = (\d+): (\d+) objects?/.exec(line);
    if (chain) chains.set(Number(chain[1]), Number(chain[2]));
  }
  return { objects, chains };
}

function sha1Object(type: string, content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  do {
    bytes.push((value & 0x7f) | (value >= 0x80 ? 0x80 : 0));
    value = Math.floor(value / 128);
  } while (value > 0);
  return Buffer.from(bytes);
}

/** A hand-made pack (for orders git does not write): entries already encoded, then the trailer. */
function handPack(entries: Buffer[]): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
  const body = Buffer.concat([header, ...entries]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

describe.skipIf(!gitAvailable())('PackStore on packs made by git pack-objects', () => {
  let work: string;
  let repo: TestRepository;
  let versions: string[];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'pack-store-'));
    repo = new TestRepository(join(work, 'repo'));
    execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo.dir]);
    // One file edited 40 times (a line appended, one changed): deltas, and chains of them.
    const lines = Array.from({ length: 400 }, (_, n) => `line ${n}: ${createHash('sha1').update(String(n)).digest('hex')}`);
    versions = [];
    for (let version = 0; version < 40; version += 1) {
      lines[(version * 37) % lines.length] = `changed in version ${version}`;
      lines.push(`appended in version ${version}`);
      const text = `${lines.join('\n')}\n`;
      versions.push(text);
      await repo.commit(`version ${version}`, { 'src/big.txt': text, [`notes/n${version % 5}.md`]: `note ${version}\n` });
    }
  });
  afterAll(() => rm(work, { recursive: true, force: true }));

  function packObjects(name: string, ...flags: string[]): string {
    const base = join(work, name);
    const id = execFileSync('git', ['pack-objects', '--revs', '--no-reuse-delta', '--window=50', '--depth=50', ...flags, base], {
      cwd: repo.dir,
      input: 'main\n',
      encoding: 'utf8',
    }).trim();
    return `${base}-${id}.pack`;
  }

  async function expectEveryObject(pack: string, storeOptions: PackStoreOptions): Promise<Map<number, number>> {
    const { objects, chains } = verifyPack(repo, pack);
    const store = await PackStore.open(pack, storeOptions);
    try {
      expect(store.objects).toBe(objects.size);
      for (const [oid, type] of objects) {
        expect(store.has(oid), oid).toBe(true);
        expect(store.typeOf(oid)).toBe(type);
        // Read back by id (the chain re-resolved from the file when the cache lost its bases).
        expect(sha1Object(type, store.read(oid))).toBe(oid);
      }
      const tip = repo.git('rev-parse', 'main:src/big.txt');
      expect(store.read(tip, 'blob').toString('utf8')).toBe(versions.at(-1));
      expect(store.sizeOf(tip)).toBe(Buffer.byteLength(versions.at(-1)!));
    } finally {
      store.close();
    }
    return chains;
  }

  it('walks to a missing parent only below a commit the server declared shallow; elsewhere the history is incomplete, an error', async () => {
    // The last five commits without their parent, with every tree and blob they hold: what a shallow fetch of depth 5 sends.
    const base = join(work, 'cut');
    const older = new Set(repo.git('rev-list', 'main~5').split('\n'));
    const objects = repo
      .git('rev-list', '--objects', '--no-object-names', 'main')
      .split('\n')
      .filter((oid) => !older.has(oid));
    const id = execFileSync('git', ['pack-objects', base], { cwd: repo.dir, input: `${objects.join('\n')}\n`, encoding: 'utf8' }).trim();
    const store = await PackStore.open(`${base}-${id}.pack`, options());
    try {
      const walk = (shallow: string[]) =>
        walkHistory({
          store,
          tip: repo.git('rev-parse', 'main'),
          shallow: new Set(shallow),
          maxCommits: 100,
          maxBlobs: 1000,
          signal: new AbortController().signal,
        });
      const boundary = repo.git('rev-parse', 'main~4');
      expect((await walk([boundary])).commits).toBe(5);
      await expect(walk([])).rejects.toThrow(CorruptPack);
      await expect(walk([])).rejects.toThrow(/parent .* is missing, and the server did not declare it shallow/);
    } finally {
      store.close();
    }
  });

  it('resolves OFS deltas and their chains', async () => {
    const pack = packObjects('ofs', '--delta-base-offset');
    expect(pack).toMatch(/\.pack$/);
    const chains = await expectEveryObject(pack, options());
    expect(Math.max(...chains.keys())).toBeGreaterThanOrEqual(10);
    // The pack really uses OFS deltas: object type 6 somewhere after the header.
    expect(kinds(await readFile(pack))).toContain(6);
  });

  it('resolves REF deltas and their chains', async () => {
    const pack = packObjects('ref');
    const chains = await expectEveryObject(pack, options());
    expect(Math.max(...chains.keys())).toBeGreaterThanOrEqual(10);
    expect(kinds(await readFile(pack))).toContain(7);
    expect(kinds(await readFile(pack))).not.toContain(6);
  });

  it('hands every blob, whole or delta, to onBlob once as the pass resolves it', async () => {
    const pack = packObjects('on-blob', '--delta-base-offset');
    const { objects } = verifyPack(repo, pack);
    const seen = new Map<number, string>();
    const store = await PackStore.open(
      pack,
      options({
        cacheBytes: 1024,
        onBlob: (ordinal, content) => {
          expect(seen.has(ordinal)).toBe(false);
          seen.set(ordinal, sha1Object('blob', Buffer.from(content)));
        },
      }),
    );
    try {
      const blobs = [...objects].filter(([, type]) => type === 'blob').map(([oid]) => oid);
      expect(blobs.length).toBeGreaterThan(40);
      expect(new Set(seen.values())).toEqual(new Set(blobs));
      for (const oid of blobs) expect(seen.get(store.ordinal(oid))).toBe(oid);
    } finally {
      store.close();
    }
  });

  it('reads every object back with a cache too small to hold a base (chains re-read from the file)', async () => {
    const pack = packObjects('tiny-cache', '--delta-base-offset');
    await expectEveryObject(pack, options({ cacheBytes: 1024 }));
  });

  it('keeps commits and trees inflated from the pass while its budget lasts, and reads them back the same', async () => {
    const pack = packObjects('kept', '--delta-base-offset');
    const { objects } = verifyPack(repo, pack);
    const metadata = [...objects.values()].filter((type) => type === 'commit' || type === 'tree').length;
    // Everything kept: reads of commits and trees (deltas among them) come from the kept bytes.
    const all = await PackStore.open(pack, options({ cacheBytes: 1024, keptBytes: 1 << 20 }));
    try {
      expect(all.keptObjects).toBe(metadata);
    } finally {
      all.close();
    }
    await expectEveryObject(pack, options({ cacheBytes: 1024, keptBytes: 1 << 20 }));
    // A budget spent partway: the rest is read from the file, with the same result.
    const some = await PackStore.open(pack, options({ cacheBytes: 1024, keptBytes: 4096 }));
    try {
      expect(some.keptObjects).toBeGreaterThan(0);
      expect(some.keptObjects).toBeLessThan(metadata);
    } finally {
      some.close();
    }
    await expectEveryObject(pack, options({ cacheBytes: 1024, keptBytes: 4096 }));
  });

  it('resolves a REF delta whose base comes after it in the pack', async () => {
    const base = Buffer.from('the base object, long enough to copy from\n');
    const target = Buffer.from('the base object, long enough to copy from\nand one more line\n');
    const baseOid = sha1Object('blob', base);
    // copy 43 bytes from offset 0, then insert the rest
    const tail = target.subarray(base.length);
    const delta = Buffer.concat([
      varint(base.length),
      varint(target.length),
      Buffer.from([0x90, base.length]),
      Buffer.from([tail.length]),
      tail,
    ]);
    expect(applyDelta(base, delta).equals(target)).toBe(true);
    const file = join(work, 'late-base.pack');
    await writeFile(
      file,
      handPack([
        Buffer.concat([objectHeader(7, delta.length), Buffer.from(baseOid, 'hex'), deflateSync(delta)]),
        Buffer.concat([objectHeader(3, base.length), deflateSync(base)]),
      ]),
    );
    // git agrees the pack is valid
    repo.git('index-pack', file);
    const store = await PackStore.open(file, options());
    expect(store.read(sha1Object('blob', target), 'blob').equals(target)).toBe(true);
    expect(store.read(baseOid, 'blob').equals(base)).toBe(true);
    store.close();
  });

  it('refuses a REF delta whose base is not in the pack (a thin pack)', async () => {
    const delta = Buffer.concat([varint(3), varint(2), Buffer.from([2]), Buffer.from('ok')]);
    const file = join(work, 'thin.pack');
    await writeFile(file, handPack([Buffer.concat([objectHeader(7, delta.length), Buffer.alloc(20, 0xab), deflateSync(delta)])]));
    await expect(PackStore.open(file, options())).rejects.toThrow(/base that is not in the pack/);
  });

  it('refuses a delta that copies outside its base', async () => {
    const base = Buffer.from('short');
    const delta = Buffer.concat([varint(base.length), varint(100), Buffer.from([0x90, 100])]);
    expect(() => applyDelta(base, delta)).toThrow(CorruptPack);
    const file = join(work, 'outside.pack');
    const first = Buffer.concat([objectHeader(3, base.length), deflateSync(base)]);
    // An OFS delta on the object just before it: its offset back is that object's length (< 128: one byte).
    await writeFile(
      file,
      handPack([first, Buffer.concat([objectHeader(6, delta.length), Buffer.from([first.length]), deflateSync(delta)])]),
    );
    await expect(PackStore.open(file, options())).rejects.toThrow(CorruptPack);
  });

  it('refuses a pack with a flipped byte', async () => {
    const pack = await readFile(packObjects('flipped', '--delta-base-offset'));
    // Flip bytes in the middle of the objects, and separately in the trailer: both are errors.
    for (const at of [Math.floor(pack.length / 2), pack.length - 5]) {
      const damaged = Buffer.from(pack);
      damaged[at] ^= 0x40;
      const file = join(work, `flipped-${at}.pack`);
      await writeFile(file, damaged);
      await expect(PackStore.open(file, options()), `byte ${at}`).rejects.toThrow(CorruptPack);
    }
  });

  it('refuses a truncated pack', async () => {
    const pack = await readFile(packObjects('cut', '--delta-base-offset'));
    for (const length of [Math.floor(pack.length / 3), pack.length - 21, pack.length - 1, 30]) {
      const file = join(work, `cut-${length}.pack`);
      await writeFile(file, pack.subarray(0, length));
      await expect(PackStore.open(file, options()), `${length} of ${pack.length} bytes`).rejects.toThrow(CorruptPack);
    }
  });

  /** Writes `pack` into a growing file in chunks, one per turn of the event loop, while it is indexed. */
  async function indexWhileArriving(pack: Buffer, name: string, chunk: number, cut?: Error): Promise<PackStore> {
    const file = join(work, name);
    const writer = new PackFileWriter(file);
    const opened = PackStore.open(file, options(), writer);
    const stop = cut ? Math.floor(pack.length / 2) : pack.length;
    for (let at = 0; at < stop; at += chunk) {
      writer.write(pack.subarray(at, Math.min(at + chunk, stop)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (cut) writer.fail(cut);
    else writer.finish();
    return opened;
  }

  it('indexes a pack while it arrives, in small and odd-sized chunks', async () => {
    const path = packObjects('arriving', '--delta-base-offset');
    const pack = await readFile(path);
    const { objects } = verifyPack(repo, path);
    for (const chunk of [1000, 4093, 65_536]) {
      const store = await indexWhileArriving(pack, `arriving-${chunk}.pack`, chunk);
      expect(store.objects).toBe(objects.size);
      for (const [oid, type] of objects) expect(sha1Object(type, store.read(oid))).toBe(oid);
      store.close();
    }
  });

  it("fails the indexing with the transfer's error when the transfer fails midway", async () => {
    const pack = await readFile(packObjects('failing', '--delta-base-offset'));
    const failure = new Error('the connection dropped');
    await expect(indexWhileArriving(pack, 'failing.pack', 4096, failure)).rejects.toThrow('the connection dropped');
  });

  it('hashes a whole object over the in-memory bound as a stream and refuses to read it', async () => {
    const pack = packObjects('large', '--delta-base-offset');
    const tip = repo.git('rev-parse', 'main:src/big.txt');
    const size = Buffer.byteLength(versions.at(-1)!);
    // Deltas over the bound are an error (the chains here are deltas of deltas of the big file).
    await expect(PackStore.open(pack, options({ maxObjectBytes: size - 1 }))).rejects.toThrow(ObjectTooLarge);
    const whole = packObjects('large-whole', '--delta-base-offset', '--depth=0');
    const store = await PackStore.open(whole, options({ maxObjectBytes: size - 1 }));
    expect(store.has(tip)).toBe(true);
    expect(store.sizeOf(tip)).toBe(size);
    expect(() => store.read(tip)).toThrow(ObjectTooLarge);
    store.close();
  });
});

/** The pack type of each object of a pack (its header's first byte), walking the zlib streams. */
function kinds(pack: Buffer): number[] {
  const found: number[] = [];
  let at = 12;
  const count = pack.readUInt32BE(8);
  for (let n = 0; n < count; n += 1) {
    let byte = pack[at++];
    const type = (byte >> 4) & 7;
    found.push(type);
    while (byte & 0x80) byte = pack[at++];
    if (type === 6) {
      byte = pack[at++];
      while (byte & 0x80) byte = pack[at++];
    } else if (type === 7) at += 20;
    at += deflatedLength(pack, at);
  }
  return found;
}

function deflatedLength(pack: Buffer, at: number): number {
  const { engine } = inflateSync(pack.subarray(at), { info: true }) as unknown as {
    engine: { bytesWritten: number };
  };
  return engine.bytesWritten;
}
