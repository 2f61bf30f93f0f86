import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

/**
 * A `--require` hook that records, at exit, what a process paid for at start-up: the bundle files
 * it loaded, Node's internal modules, and the parsers zod compiled with `new Function` (its JIT).
 */
const HOOK = `
const { writeFileSync } = require('node:fs');
const { registerHooks } = require('node:module');
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
let zodJit = 0;
globalThis.Function = new Proxy(Function, {
  construct(target, args) { if (args.join(' ').includes('payload.value')) zodJit += 1; return Reflect.construct(target, args); },
  apply(target, self, args) { if (args.join(' ').includes('payload.value')) zodJit += 1; return Reflect.apply(target, self, args); },
});
process.on('exit', () => writeFileSync(process.env.STARTUP_FILE, JSON.stringify({ loaded, internal: process.moduleLoadList, zodJit })));
`;

/** The X.509 stack: the logotype extension's OID is in the chunk that holds it, and nowhere else. */
const X509_MARKER = '1.3.6.1.5.5.7.1.12';

describe('mailscan scan: start-up', () => {
  const work = mkdtempSync(join(tmpdir(), 'mailscan-startup-'));
  const hook = join(work, 'hook.cjs');
  let dns: TestDnsServer;

  beforeAll(async () => {
    writeFileSync(hook, HOOK);
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('loads no HTTP client internals, no TLS, no X.509 stack, no zod locale, no config schema and compiles no zod parser for a scan that fetches nothing and has no config file', async () => {
    const file = join(work, 'startup.json');

    const run = await runCli(['scan', 'good.test', '--nameserver', dns.address], { STARTUP_FILE: file }, ['--require', hook]);

    expect(run.code, run.stderr).toBe(0);
    const { loaded, internal, zodJit } = JSON.parse(readFileSync(file, 'utf8')) as { loaded: string[]; internal: string[]; zodJit: number };
    const bundle = loaded.filter((url) => url.startsWith('file:') && url.endsWith('.js')).map((url) => fileURLToPath(url));
    expect(bundle.length).toBeGreaterThan(1);
    // undici is what node:http's ES facade pulled in (its WebSocket getters): ~150 ms, unused.
    expect(internal.filter((name) => name.includes('undici'))).toEqual([]);
    expect(bundle.filter((path) => readFileSync(path, 'utf8').includes(X509_MARKER))).toEqual([]);
    expect(zodJit).toBe(0);
    // node:https and node:tls (~20 ms of CPU) load at the first https: fetch; good.test has no MTA-STS or BIMI to fetch.
    expect(internal.filter((name) => /^NativeModule (https|tls|_tls_wrap)$/.test(name))).toEqual([]);
    // zod's 48 locales came with `(await import('zod')).config(...)`, which kept its whole namespace: the German one is a marker.
    expect(bundle.filter((path) => readFileSync(path, 'utf8').includes('Ungültige'))).toEqual([]);
    // The config file's schema (some forty zod objects) is built only for a scan given --config.
    expect(bundle.filter((path) => readFileSync(path, 'utf8').includes('must be a DNS zone name'))).toEqual([]);
  });

  it('runs --version without the catalogue or node:crypto', async () => {
    const file = join(work, 'version.json');

    const run = await runCli(['--version'], { STARTUP_FILE: file }, ['--require', hook]);

    expect(run.code, run.stderr).toBe(0);
    const { loaded, internal } = JSON.parse(readFileSync(file, 'utf8')) as { loaded: string[]; internal: string[] };
    const bundle = loaded.filter((url) => url.startsWith('file:') && url.endsWith('.js')).map((url) => fileURLToPath(url));
    // The argument parser's technique names once came with the catalogue and the fingerprints' node:crypto.
    expect(bundle.filter((path) => readFileSync(path, 'utf8').includes('mailscan.spf.missing'))).toEqual([]);
    expect(internal).not.toContain('NativeModule crypto');
    // esbuild's namespace copy of node:util read every export's descriptor, which makes node 24
    // load what util.diff and util.setTraceSigInt stand for (worker_threads, locks, the diff).
    expect(internal.filter((name) => /^NativeModule (worker_threads|internal\/util\/diff|internal\/locks)$/.test(name))).toEqual([]);
  });
});
