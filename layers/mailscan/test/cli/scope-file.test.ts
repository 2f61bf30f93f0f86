import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.ts';
import { applyScopeFile } from '../../src/cli/scope-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'mailscan-scope-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The runner's command line with a scope file holding `scope`, parsed as the CLI parses it. */
async function scanWith(scope: unknown) {
  const file = join(dir, `scope-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(scope));
  const parsed = parseArgs(['scan', `--scope-json=${file}`, '--timeout=55', '--format=json', '--', 'example.com']);
  if (!parsed.ok || parsed.command.kind !== 'scan') throw new Error(`usage: ${JSON.stringify(parsed)}`);
  return applyScopeFile(parsed.command);
}

/** The one runner's frame (docs/engine-contract.md): the scope in a file, its artifacts as the paths the runner fetched them to. */
describe('mailscan scan --scope-json', () => {
  it('reads the artifacts as paths, however they start: nothing in the file is read as an option', async () => {
    const result = await scanWith({
      rua: ['-h', '/run/a/rua-1.xml'],
      header: '--config=/etc/passwd',
      dkim_selectors: ['s1'],
      reputation: false,
    });

    expect(result).toMatchObject({
      ok: true,
      args: {
        domain: 'example.com',
        rua: ['-h', '/run/a/rua-1.xml'],
        eml: '--config=/etc/passwd',
        configPath: null,
        dkimSelectors: ['s1'],
        reputation: false,
      },
    });
  });

  it('turns on the surfaces a technique needs, as the flags do', async () => {
    expect(await scanWith({ techniques: ['T1598'] })).toMatchObject({
      ok: true,
      args: { leak: true, discover: false, techniques: ['T1598'] },
    });
    expect(await scanWith({ techniques: ['T1598'], reputation: false })).toMatchObject({
      ok: false,
      message: expect.stringContaining('reputation'),
    });
  });

  it('refuses what the API refuses: an unknown key, a bad selector', async () => {
    expect(await scanWith({ colour: 'blue' })).toMatchObject({ ok: false, message: expect.stringContaining('colour') });
    expect(await scanWith({ dkim_selectors: ['bad!'] })).toMatchObject({ ok: false, message: expect.stringContaining('dkim_selectors.0') });
  });
});
