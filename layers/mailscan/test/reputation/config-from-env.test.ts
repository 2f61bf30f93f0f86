import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reputationConfigFromEnv } from '../../src/reputation/config-from-env.ts';
import { loadBundledVmcRoots } from '../../src/reputation/vmc-roots.ts';
import { makeRoot, type Issuer } from './x509-fixtures.ts';

let folder: string;
let root: Issuer;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mailscan-roots-'));
  root = await makeRoot();
  writeFileSync(join(folder, 'test-root.pem'), root.pem);
  writeFileSync(join(folder, 'notes.txt'), 'ignored');
  writeFileSync(`${folder}-empty.pem`, 'not a certificate');
});

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(`${folder}-empty.pem`, { force: true });
});

const noBundledRoots = () => [];

describe('reputationConfigFromEnv', () => {
  it('uses the built-in defaults with no environment and no file', () => {
    const result = reputationConfigFromEnv({}, {}, noBundledRoots);

    expect(result).toEqual({
      ok: true,
      config: {
        dnsbl: {
          ipZones: ['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org'],
          domainZones: ['dbl.spamhaus.org', 'multi.surbl.org', 'multi.uribl.com'],
        },
        trustlist: { zones: ['list.dnswl.org'] },
        senderScore: { endpoint: '', timeoutMs: 5_000 },
        threatIntel: { endpoint: 'https://www.virustotal.com', timeoutMs: 8_000 },
        vmcRoots: expect.any(Function),
      },
    });
  });

  it('maps operator keys and endpoints from the environment over the file', () => {
    const env = {
      MAILSCAN_SPAMHAUS_DQS_KEY: 'abc123',
      MAILSCAN_SENDERSCORE_KEY: 'sk',
      MAILSCAN_SENDERSCORE_URL: 'http://127.0.0.1:9/',
      MAILSCAN_THREATINTEL_KEY: 'tk',
      MAILSCAN_THREATINTEL_URL: 'https://ti.example',
    };
    const file = {
      senderscore: { endpoint: 'https://file.example', timeout_ms: 900 },
      threatintel: { timeout_ms: 700 },
      dnsbl: { ip_zones: ['bl.example'] },
      trustlist: { zones: [] },
    };

    const result = reputationConfigFromEnv(env, file, noBundledRoots);

    expect(result.ok && result.config).toMatchObject({
      dnsbl: { ipZones: ['bl.example'], domainZones: ['dbl.spamhaus.org', 'multi.surbl.org', 'multi.uribl.com'] },
      trustlist: { zones: [] },
      spamhausDqsKey: 'abc123',
      senderScore: { endpoint: 'http://127.0.0.1:9/', key: 'sk', timeoutMs: 900 },
      threatIntel: { endpoint: 'https://ti.example', key: 'tk', timeoutMs: 700 },
    });
  });

  it('treats blank variables as unset', () => {
    const result = reputationConfigFromEnv({ MAILSCAN_SENDERSCORE_KEY: ' ', MAILSCAN_SPAMHAUS_DQS_KEY: '' }, {}, noBundledRoots);

    expect(result.ok && result.config.senderScore.key).toBeUndefined();
    expect(result.ok && result.config.spamhausDqsKey).toBeUndefined();
  });

  it('refuses a DQS key that is not a plain DNS label, without echoing it', () => {
    const result = reputationConfigFromEnv({ MAILSCAN_SPAMHAUS_DQS_KEY: 'evil.example.com' }, {}, noBundledRoots);

    expect(result).toEqual({ ok: false, message: 'MAILSCAN_SPAMHAUS_DQS_KEY must be letters and digits only' });
  });

  it('refuses an endpoint that is not an http(s) URL', () => {
    const result = reputationConfigFromEnv({ MAILSCAN_THREATINTEL_URL: 'ftp://x' }, {}, noBundledRoots);

    expect(result.ok).toBe(false);
  });

  it('replaces the bundled roots with the PEM files of MAILSCAN_VMC_ROOTS', () => {
    const result = reputationConfigFromEnv({ MAILSCAN_VMC_ROOTS: folder }, {}, () => ['bundled']);

    expect(result.ok && result.config.vmcRoots()).toEqual([root.pem]);
  });

  it('refuses a MAILSCAN_VMC_ROOTS path without a certificate or that does not exist', () => {
    const empty = reputationConfigFromEnv({ MAILSCAN_VMC_ROOTS: `${folder}-empty.pem` }, {}, noBundledRoots);
    const missing = reputationConfigFromEnv({ MAILSCAN_VMC_ROOTS: join(folder, 'nope') }, {}, noBundledRoots);

    expect(empty).toMatchObject({ ok: false, message: expect.stringContaining('holds no PEM certificate') });
    expect(missing).toMatchObject({ ok: false, message: expect.stringContaining('ENOENT') });
  });
});

describe('loadBundledVmcRoots', () => {
  it('finds no roots in the source folder: the build installs them beside the bundled CLI', () => {
    expect(loadBundledVmcRoots()).toEqual([]);
  });
});
