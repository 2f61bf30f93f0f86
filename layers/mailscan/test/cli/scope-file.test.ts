import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runEngineCli } from '../../../engine-kit/src/cli.ts';
import { mailscanDefinition } from '../../src/cli/definition.ts';
import { prepareScan } from '../../src/cli/scan-settings.ts';

const dir = mkdtempSync(join(tmpdir(), 'mailscan-scope-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scopeFile(scope: unknown): string {
  const file = join(dir, `scope-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(scope));
  return file;
}

/** What mailscan prepares from a scope as the kit's frame parsed it (the runner's scope file). */
async function prepared(scope: unknown) {
  const schema = await mailscanDefinition.scopeSchema();
  return prepareScan({
    target: 'example.com',
    scope: schema.parse(scope),
    config: {},
    flags: { nameserver: ['192.0.2.1'] },
    env: {},
    timeoutSeconds: 55,
  });
}

/** The runner's command line with a scope file holding `scope`, through the kit's frame: the exit code and stderr. */
async function runWith(scope: unknown): Promise<{ code: number; stderr: string }> {
  const err: string[] = [];
  const code = await runEngineCli(mailscanDefinition, ['scan', `--scope-json=${scopeFile(scope)}`, '--timeout=55', '--', 'example.com'], {
    stdout: () => {
      throw new Error('nothing is printed for a usage error');
    },
    stderr: (text) => err.push(text),
    env: { MAILSCAN_NAMESERVERS: '192.0.2.1' },
    now: () => new Date(),
  });
  return { code, stderr: err.join('') };
}

/** The one runner's frame (docs/engine-contract.md): the scope in a file, its artifacts as the paths the runner fetched them to. */
describe('mailscan scan --scope-json', () => {
  it('reads the artifacts as paths, however they start: nothing in the file is read as an option', async () => {
    const result = await prepared({
      rua: ['-h', '/run/a/rua-1.xml'],
      header: '--config=/etc/passwd',
      dkim_selectors: ['s1'],
      reputation: false,
    });

    expect(result.asked).toMatchObject({ rua: ['-h', '/run/a/rua-1.xml'], eml: '--config=/etc/passwd', reputation: false });
    expect(result.settings.dkimSelectors).toContain('s1');
    expect(result.settings.reputation).toBeNull();
  });

  it('turns on the surfaces a technique needs, as the flags do', async () => {
    expect((await prepared({ techniques: ['T1598'] })).asked).toMatchObject({ leak: true, discover: false, techniques: ['T1598'] });
    const refused = await runWith({ techniques: ['T1598'], reputation: false });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('techniques need the reputation surface');
  });

  it('refuses what the API refuses: an unknown key, a bad selector', async () => {
    const unknown = await runWith({ colour: 'blue' });
    const badSelector = await runWith({ dkim_selectors: ['bad!'] });

    expect([unknown.code, badSelector.code]).toEqual([2, 2]);
    expect(unknown.stderr).toContain('colour');
    expect(badSelector.stderr).toContain('dkim_selectors.0');
  });
});
