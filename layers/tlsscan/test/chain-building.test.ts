import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapBounded } from '../../../lib/concurrency.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { type Node, ca, der, ladder, leaf, pem, root } from './helpers/chains.ts';
import { startRawTlsServer } from './helpers/raw-tls-server.ts';
import { hasBinary } from './helpers/servers.ts';

/**
 * Issue 33 item 2: tlsscan's chain verdict (tls.cert.untrusted) equals `openssl verify` with the
 * same anchor and the same sent certificates as untrusted intermediates. Each chain is served by
 * the raw-record server and scanned by the built CLI; OpenSSL is asked at test time, so the table
 * holds no expected verdict of its own.
 */
interface Case {
  name: string;
  /** As the server sends it: leaf first. */
  sent: Node[];
  anchor: Node;
}

let work: string;
const cases: Case[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tlsscan-chains-'));
  const r = await root('Table Root');
  const add = (name: string, sent: Node[], anchor: Node = r): void => void cases.push({ name, sent, anchor });

  const int = await ca(r, 'Int');
  add('root, intermediate, leaf', [await leaf(int), int]);
  add('leaf issued by the root', [await leaf(r)]);
  const notCa = await ca(r, 'Int CA:FALSE', { ca: false });
  add('issuer with CA:FALSE', [await leaf(notCa), notCa]);
  const noBasic = await ca(r, 'Int without basicConstraints', { ca: null });
  add('issuer without basicConstraints', [await leaf(noBasic), noBasic]);
  const noCertSign = await ca(r, 'Int without keyCertSign', { keyUsage: 'digitalSignature' });
  add('issuer whose keyUsage lacks keyCertSign', [await leaf(noCertSign), noCertSign]);
  const noUsage = await ca(r, 'Int without keyUsage', { keyUsage: null });
  add('issuer without keyUsage', [await leaf(noUsage), noUsage]);
  const zero = await ca(r, 'Int pathlen 0', { pathLen: 0 });
  add('pathlen:0 issuing the leaf', [await leaf(zero), zero]);
  const belowZero = await ca(zero, 'Int below pathlen 0');
  add('a CA below a pathlen:0 CA', [await leaf(belowZero), belowZero, zero]);
  const one = await ca(r, 'Int pathlen 1', { pathLen: 1 });
  const belowOne = await ca(one, 'Int below pathlen 1');
  add('a CA below a pathlen:1 CA', [await leaf(belowOne), belowOne, one]);
  const rootZero = await root('Root pathlen 0', { pathLen: 0 });
  const underRootZero = await ca(rootZero, 'Int under root pathlen 0');
  add('one intermediate under a pathlen:0 root', [await leaf(underRootZero), underRootZero], rootZero);
  const secondUnderRootZero = await ca(underRootZero, 'Second under root pathlen 0');
  add('two intermediates under a pathlen:0 root', [await leaf(secondUnderRootZero), secondUnderRootZero, underRootZero], rootZero);
  const endEntity = await leaf(int, 'end entity');
  add('a leaf issued by a leaf', [await leaf(endEntity), endEntity, int]);
  add('missing intermediate', [await leaf(int)]);
  const impostor = await ca(await root('Other Root'), 'Int');
  add('intermediate of the same name, other key', [await leaf(int), impostor]);
  add('self-signed leaf', [r], await root('Unrelated Root'));
  // A loop: A is issued by B and B by A, and neither reaches the anchor.
  const loopRoot = await root('Loop Seed');
  const a = await ca(loopRoot, 'Loop A');
  const b = await ca(a, 'Loop B');
  const aByB = await ca(b, 'Loop A', {}, a.keys);
  add('a loop of two CAs', [await leaf(a), aByB, b]);
  for (const length of [11, 100, 102, 103]) {
    const steps = await ladder(r, length - 2, `Step of ${length}`);
    add(`a chain of ${length} certificates`, [await leaf(steps.at(-1)!), ...steps.reverse()]);
  }
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function opensslVerify(entry: Case, index: number): Promise<boolean> {
  const dir = join(work, String(index));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  const anchorFile = join(dir, 'anchor.pem');
  const leafFile = join(dir, 'leaf.pem');
  const untrustedFile = join(dir, 'untrusted.pem');
  await writeFile(anchorFile, pem(entry.anchor));
  await writeFile(leafFile, pem(entry.sent[0]));
  const untrusted = entry.sent.slice(1);
  await writeFile(untrustedFile, untrusted.map(pem).join('\n'));
  const args = [
    'verify',
    '-no-CApath',
    '-no-CAstore',
    '-CAfile',
    anchorFile,
    ...(untrusted.length ? ['-untrusted', untrustedFile] : []),
    leafFile,
  ];
  return new Promise((resolve) => execFile('openssl', args, (error) => resolve(!error)));
}

async function tlsscanVerdict(entry: Case): Promise<{ trusted: boolean; detail: string }> {
  const server = await startRawTlsServer({ versions: [0x0303], suites: [0xc02f], certificates: entry.sent.map(der) });
  try {
    const { report } = await scanWithEngine('tlsscan', `localhost:${server.port}`, { extra_roots: pem(entry.anchor) });
    const check = report.checks.find((c) => c.id === 'tls.cert.untrusted')!;
    if (check.status === 'error') throw new Error(`${entry.name}: ${check.detail}`);
    const finding = report.findings.find((f) => f.rule_id === 'tls.cert.untrusted');
    return { trusted: check.status === 'pass', detail: finding?.detail ?? check.detail ?? '' };
  } finally {
    await server.close();
  }
}

describe.runIf(hasBinary('openssl'))('tlsscan chain building against openssl verify', () => {
  it('gives the verdict openssl verify gives on every chain of the table', async () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
    const rows = await mapBounded(cases, 4, async (entry, index) => {
      const [openssl, tlsscan] = await Promise.all([opensslVerify(entry, index), tlsscanVerdict(entry)]);
      return { name: entry.name, openssl, tlsscan: tlsscan.trusted, detail: tlsscan.detail };
    });
    const disagreements = rows.filter((row) => row.openssl !== row.tlsscan);
    expect(disagreements).toEqual([]);
    // The table holds both verdicts, so agreement is not agreement on one answer.
    expect(new Set(rows.map((row) => row.openssl))).toEqual(new Set([true, false]));
    const loop = rows.find((row) => row.name === 'a loop of two CAs')!;
    expect(loop.detail).not.toMatch(/signature/);
    expect(loop.detail).toMatch(/loop/);
  }, 180_000);
});
