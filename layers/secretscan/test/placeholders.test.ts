import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineReport } from '../../../lib/report.ts';
import { base62Crc32 } from '../src/false-positives.ts';
import { sha256Hex } from '../src/secret-evidence.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { gitAvailable, startGitServer, type GitServer } from '../../../test/helpers/git-http-server.ts';
import { checksummedToken, randomSecret } from './planted.ts';

/**
 * Issue 33 item 10: placeholders in a setup guide and tokens whose checksum does not verify are
 * not secrets; issued tokens (a valid checksum) still are. The built CLI scans a repository on
 * the test's git server.
 */
const GH = ['gh', 'p_'].join('');
const NPM = ['np', 'm_'].join('');

describe.skipIf(!gitAvailable())('secretscan placeholders and checksums', () => {
  let server: GitServer;
  let report: EngineReport;
  const real = { github: checksummedToken(GH), npm: checksummedToken(NPM) };

  beforeAll(async () => {
    server = await startGitServer();
    const repository = await server.repository('guide');
    await repository.commit('setup guide', {
      'docs/setup.md': [
        '# Setup',
        `export GITHUB_TOKEN=${GH}${'x'.repeat(36)}`,
        `GITHUB_TOKEN="${GH}${'YOURTOKENHERE'.padEnd(36, '0')}"`,
        `token: ${GH}${randomSecret(36)}`,
        `//registry.npmjs.org/:_authToken=${NPM}${'x'.repeat(36)}`,
        `NPM_TOKEN=${NPM}${randomSecret(36)}`,
        '',
      ].join('\n'),
      'src/publish.js': `const github = '${real.github}';\nconst npm = '${real.npm}';\n`,
    });
    ({ report } = await scanWithEngine('secretscan', `${server.origin}/guide.git`));
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it('computes the checksum of a published (expired) GitHub token', () => {
    expect(base62Crc32('zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ')).toBe('0mLq17');
  });

  it('reports only the tokens whose checksum verifies, and no placeholder', () => {
    const keys = (rule: string): string[] => report.findings.filter((f) => f.rule_id === rule).map((f) => f.fingerprint_key);
    expect(keys('secret.github_token')).toEqual([sha256Hex(real.github)]);
    expect(keys('secret.npm_token')).toEqual([sha256Hex(real.npm)]);
    expect(report.findings.filter((f) => JSON.stringify(f).includes('docs/setup.md'))).toEqual([]);
  });
});
