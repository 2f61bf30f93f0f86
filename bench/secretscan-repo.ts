import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The benchmark's repository, made with `git fast-import` (seconds, where a commit per process
 * would take an hour): `commits` commits on `main`, each adding one source file and editing an
 * older one, so the distinct blobs add up to about `megabytes` MB and `git log -p` sees the added
 * files and one-line edits. Every 1000th commit adds a file with an AWS key pair, so both sides
 * have findings. Text is code-like words from a seeded generator: the same repository every time.
 */
const WORDS = (
  'const let var function return import export default class extends this new if else for while await async value key ' +
  'name data result error config options request response handler client server user account session token_count ' +
  'items index length push map filter reduce string number boolean object array promise resolve reject timeout retry'
).split(' ');

function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function line(random: () => number): string {
  const count = 5 + Math.floor(random() * 6);
  const parts: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const word = WORDS[Math.floor(random() * WORDS.length)];
    parts.push(random() < 0.2 ? `${word}${Math.floor(random() * 1000)}` : word);
  }
  return `${'  '.repeat(Math.floor(random() * 3))}${parts.join(' ')};`;
}

function baseFile(file: number, bytes: number): string {
  const random = generator(file * 7919 + 1);
  const lines: string[] = [`// module ${file}`];
  let size = lines[0].length;
  while (size < bytes) {
    const next = line(random);
    lines.push(next);
    size += next.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

function edited(file: number, version: number, bytes: number): string {
  const random = generator(file * 104729 + version);
  let text = baseFile(file, bytes);
  for (let v = 1; v <= version; v += 1) text += `// change ${v}: ${line(random)}\n`;
  return text;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function planted(seed: number): string {
  const random = generator(seed);
  const pick = (alphabet: string, length: number): string =>
    Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  return `AWS_ACCESS_KEY_ID=${['AK', 'IA'].join('')}${pick(UPPER, 16)}\naws_secret_access_key = "${pick(B64, 40)}"\n`;
}

export interface BenchRepository {
  /** The folder served as GIT_PROJECT_ROOT; the repository is `bench.git` in it. */
  root: string;
  commits: number;
}

/** The cached repository for these parameters, generated on first use. */
export async function benchRepository(cacheRoot: string, commits: number, megabytes: number): Promise<BenchRepository> {
  const root = join(cacheRoot, `secretscan-bench-v1-${commits}c-${megabytes}mb`);
  const gitdir = join(root, 'bench.git');
  if (existsSync(join(gitdir, 'refs', 'heads', 'main')) || existsSync(join(gitdir, 'packed-refs'))) return { root, commits };
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', gitdir]);
  const fileBytes = Math.max(500, Math.round((megabytes * 1_000_000) / (2 * commits)));
  const importer = spawn('git', ['fast-import', '--quiet'], { cwd: gitdir, stdio: ['pipe', 'inherit', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => {
    importer.on('error', reject);
    importer.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`))));
  });
  const write = async (text: string): Promise<void> => {
    if (!importer.stdin.write(text)) await new Promise((resolve) => importer.stdin.once('drain', resolve));
  };
  const blob = (mark: number, content: string): string => `blob\nmark :${mark}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  const versions = new Map<number, number>();
  const random = generator(42);
  let mark = 0;
  for (let commit = 1; commit <= commits; commit += 1) {
    const changes: string[] = [];
    let chunk = '';
    const added = (mark += 1);
    chunk += blob(added, baseFile(commit, fileBytes));
    changes.push(`M 100644 :${added} src/m${commit % 100}/f${commit}.js`);
    if (commit > 1) {
      const file = 1 + Math.floor(random() * (commit - 1));
      const version = (versions.get(file) ?? 0) + 1;
      versions.set(file, version);
      const changed = (mark += 1);
      chunk += blob(changed, edited(file, version, fileBytes));
      changes.push(`M 100644 :${changed} src/m${file % 100}/f${file}.js`);
    }
    if (commit % 1000 === 0) {
      const leak = (mark += 1);
      chunk += blob(leak, planted(commit));
      changes.push(`M 100644 :${leak} config/leak-${commit}.env`);
    }
    const message = `change ${commit}\n`;
    const when = 1_600_000_000 + commit * 600;
    const commitMark = (mark += 1);
    chunk +=
      `commit refs/heads/main\nmark :${commitMark}\nauthor Bench <bench@example.test> ${when} +0000\n` +
      `committer Bench <bench@example.test> ${when} +0000\ndata ${Buffer.byteLength(message)}\n${message}` +
      `${changes.join('\n')}\n\n`;
    await write(chunk);
  }
  importer.stdin.end();
  await done;
  // One pack with deltas, as a hosting server keeps it.
  execFileSync('git', ['repack', '-a', '-d', '-q'], { cwd: gitdir });
  return { root, commits };
}
