import * as fs from 'node:fs';
import { join } from 'node:path';

/**
 * The file system isomorphic-git sees: node's, until `settle()` after the clone. From then on the
 * repository is read-only, and every object read stops costing three system calls: isomorphic-git
 * stats the gitdir, tries the loose object file, then lists objects/pack, before each packed read
 * (thousands of tree and blob reads per scan; on a busy machine each waits for libuv's thread
 * pool). A settled clone answers those three from memory; everything else still goes to disk.
 */
export interface CloneFs {
  promises: typeof fs.promises;
  /** Call once the clone is written: remembers its loose objects and its pack folder. */
  settle(gitdir: string): Promise<void>;
}

export function makeCloneFs(): CloneFs {
  let settled:
    { gitdir: string; gitdirStat: fs.Stats; looseDirs: Set<string>; objects: string; packDir: string; packEntries: string[] } | undefined;
  const looseObject = /\/objects\/([0-9a-f]{2})\/[0-9a-f]{38}$/;
  const promises = new Proxy(fs.promises, {
    get(target, property, receiver) {
      if (property === 'readFile') {
        return (path: string, options?: unknown) => {
          const loose = settled && typeof path === 'string' && path.startsWith(settled.objects) ? looseObject.exec(path) : null;
          // Undefined is isomorphic-git's "not there" for file systems that do not throw (LightningFS):
          // no Error to build and unwind for each of thousands of reads.
          if (loose && !settled!.looseDirs.has(loose[1])) return Promise.resolve(undefined);
          return target.readFile(path, options as never);
        };
      }
      if (property === 'stat') {
        // Every isomorphic-git call stats the gitdir first (discoverGitdir).
        return (path: string, options?: unknown) =>
          settled && path === settled.gitdir ? Promise.resolve(settled.gitdirStat) : target.stat(path, options as never);
      }
      if (property === 'readdir') {
        return (path: string, options?: unknown) =>
          settled && path === settled.packDir ? Promise.resolve([...settled.packEntries]) : target.readdir(path, options as never);
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return {
    promises,
    async settle(gitdir) {
      const objects = join(gitdir, 'objects');
      const packDir = join(objects, 'pack');
      const entries = await fs.promises.readdir(objects);
      const looseDirs = new Set(entries.filter((name) => /^[0-9a-f]{2}$/.test(name)));
      settled = {
        gitdir,
        gitdirStat: await fs.promises.stat(gitdir),
        looseDirs,
        objects: `${objects}/`,
        packDir,
        packEntries: await fs.promises.readdir(packDir),
      };
    },
  };
}
