import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runEngineCli, CouldNotStart, InvalidInput, type EngineDefinition } from '../../layers/engine-kit/src/cli.ts';
import type { CliIo } from '../../layers/engine-kit/src/progress.ts';
import { engineReportSchema, ReportBuilder, type EngineReport, type Rule } from '../../lib/report.ts';
import { resolveTarget } from '../../lib/target-policy.ts';

const TOY = { tags: ['toy'], references: ['https://example.com/toy'], confidence: 'high' } as const;
const catalogue: Rule[] = [
  { rule_id: 'toy.a', severity: 'high', title: 'A', description: 'a fires', remediation: 'fix a', ...TOY },
  { rule_id: 'toy.b', severity: 'medium', title: 'B', description: 'b fires', remediation: 'fix b', ...TOY },
  { rule_id: 'toy.c', severity: 'low', title: 'C', description: 'c fires', remediation: 'fix c', ...TOY },
];

describe('ReportBuilder', () => {
  it('gives one check per rule: fail with a finding, else error, else pass, else skipped', () => {
    const report = new ReportBuilder({ scanner: { name: 'toy', version: '1' }, target: 't', catalogue })
      .pass('toy.a', 'port 1')
      .fail('toy.a', { detail: 'seen on port 2', evidence: { port: 2 }, fingerprint_key: 't:2' })
      .pass('toy.b', 'nothing to report on the toy')
      .error('toy.b', 'port 3 timed out')
      .finish();
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['toy.a', 'fail'],
      ['toy.b', 'error'],
      ['toy.c', 'skipped'],
    ]);
    expect(report.findings).toEqual([
      {
        rule_id: 'toy.a',
        severity: 'high',
        title: 'A',
        detail: 'seen on port 2',
        evidence: { port: 2 },
        remediation: 'fix a',
        fingerprint_key: 't:2',
        subject: 't:2',
      },
    ]);
    expect(report.status).toBe('partial');
    expect(report.errors).toEqual([{ check: 'toy.b', message: 'port 3 timed out' }]);
    expect(engineReportSchema().parse(report)).toEqual(report);
  });

  it('is ok without errors, error when nothing completed, and refuses a rule outside the catalogue', () => {
    const builder = () => new ReportBuilder({ scanner: { name: 'toy', version: '1' }, target: 't', catalogue });
    expect(builder().pass('toy.a', 'nothing to report on the toy').skip(['toy.b', 'toy.c'], 'out of scope').finish().status).toBe('ok');
    expect(builder().error(['toy.a', 'toy.b'], 'down').finish().status).toBe('error');
    expect(() => builder().fail('toy.typo', { detail: '', evidence: {}, fingerprint_key: '' })).toThrow('not in the catalogue');
    const unfinished = builder().pass('toy.a', 'nothing to report on the toy').errorUnfinished('deadline').finish();
    expect(unfinished.checks.map((check) => check.status)).toEqual(['pass', 'error', 'error']);
  });

  it('refuses a pass that does not say why, so no engine can pass a check in silence', () => {
    const builder = () => new ReportBuilder({ scanner: { name: 'toy', version: '1' }, target: 't', catalogue });
    for (const silent of ['', '   ', 'ok', 'OK.'])
      expect(() => builder().pass('toy.a', silent), JSON.stringify(silent)).toThrow('toy.a passed without saying why');
    expect(builder().pass('toy.a', 'okapi record read').finish().checks[0]).toMatchObject({ status: 'pass', detail: 'okapi record read' });
  });
});

function io(env: Record<string, string> = {}): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => out.push(text), stderr: (text) => err.push(text), env, now: () => new Date('2026-11-24T00:00:00Z') };
}

function toy(scan: EngineDefinition<{ depth: number }>['scan']): EngineDefinition<{ depth: number }> {
  return {
    name: 'toyscan',
    version: '0.0.1',
    envPrefix: 'TOYSCAN',
    targetHelp: 'a host name',
    catalogue: () => catalogue,
    scopeSchema: () => z.strictObject({ depth: z.number().int().min(1).default(1) }),
    parseTarget: (raw) => (/^[a-z0-9.]+$/.test(raw) ? { ok: true, target: raw } : { ok: false, message: 'letters, digits and dots only' }),
    scan,
  };
}

describe('runEngineCli', () => {
  it('prints --version, rules and usage, with the exit codes of DESIGN §11', async () => {
    const engine = toy(async () => {});
    let streams = io();
    expect(await runEngineCli(engine, ['--version'], streams)).toBe(0);
    expect(streams.out.join('')).toBe('toyscan 0.0.1\n');
    streams = io();
    expect(await runEngineCli(engine, ['rules'], streams)).toBe(0);
    expect(JSON.parse(streams.out.join('')).rules.map((rule: Rule) => rule.rule_id)).toEqual(['toy.a', 'toy.b', 'toy.c']);
    for (const argv of [
      [],
      ['scan'],
      ['scan', 'a', 'b'],
      ['frob'],
      ['scan', 'x', '--bogus'],
      ['scan', 'x', '--timeout', '0'],
      ['scan', 'BAD!'],
    ]) {
      streams = io();
      expect(await runEngineCli(engine, argv, streams)).toBe(2);
      expect(streams.out).toEqual([]);
      expect(JSON.parse(streams.err[0]).event).toBe('usage error');
    }
  });

  it('runs a scan with its scope and prints only the report on stdout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kit-'));
    await writeFile(join(dir, 'scope.json'), '{"depth": 3}');
    await writeFile(join(dir, 'bad.json'), '{"depth": "deep"}');
    const engine = toy(async ({ scope, report, progress }) => {
      progress('probing', { depth: scope.depth });
      report
        .pass('toy.a', 'nothing to report on the toy')
        .pass('toy.b', 'nothing to report on the toy')
        .fail('toy.c', { detail: `depth ${scope.depth}`, evidence: {}, fingerprint_key: 'x' });
    });
    const streams = io();
    expect(await runEngineCli(engine, ['scan', 'example.test', `--scope-json=${join(dir, 'scope.json')}`], streams)).toBe(0);
    const report = engineReportSchema().parse(JSON.parse(streams.out.join('')));
    expect(report.findings[0].detail).toBe('depth 3');
    expect(report.status).toBe('ok');
    expect(streams.err.map((line) => JSON.parse(line).event)).toEqual(['scan started', 'probing', 'scan finished']);
    const bad = io();
    expect(await runEngineCli(engine, ['scan', 'example.test', '--scope-json', join(dir, 'bad.json')], bad)).toBe(2);
    expect(JSON.parse(bad.err[0]).message).toContain('depth');
  });

  it('hands --credential-file to the scan as context.credential, and refuses a file others may read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kit-'));
    const file = { alias: 'ci-bot', kind: 'git_token', secret: { token: 'tok-planted-kit' }, allowed_hosts: ['example.test'] };
    await writeFile(join(dir, 'credential.json'), JSON.stringify(file), { mode: 0o600 });
    await writeFile(join(dir, 'open.json'), JSON.stringify(file), { mode: 0o644 });
    await chmod(join(dir, 'open.json'), 0o644);
    const seen: unknown[] = [];
    const engine = toy(async ({ credential, report }) => {
      seen.push(credential);
      report
        .pass('toy.a', 'nothing to report on the toy')
        .pass('toy.b', 'nothing to report on the toy')
        .pass('toy.c', 'nothing to report on the toy');
    });
    expect(await runEngineCli(engine, ['scan', 'example.test'], io())).toBe(0);
    const streams = io();
    expect(await runEngineCli(engine, ['scan', 'example.test', '--credential-file', join(dir, 'credential.json')], streams)).toBe(0);
    expect(seen).toEqual([undefined, file]);
    const open = io();
    expect(await runEngineCli(engine, ['scan', 'example.test', '--credential-file', join(dir, 'open.json')], open)).toBe(2);
    expect(JSON.parse(open.err[0]).message).toMatch(/read by others/);
    expect([...streams.out, ...streams.err, ...open.err].join('')).not.toContain('tok-planted-kit');
  });

  it('ends at the deadline with the unfinished checks as errors, never a hang', async () => {
    const engine = toy(async ({ report }) => {
      report.pass('toy.a', 'nothing to report on the toy');
      await new Promise(() => {});
    });
    const streams = io();
    expect(await runEngineCli(engine, ['scan', 'example.test', '--timeout', '0.2'], streams)).toBe(0);
    const report = JSON.parse(streams.out.join('')) as EngineReport;
    expect(report.checks.map((check) => check.status)).toEqual(['pass', 'error', 'error']);
    expect(report.status).toBe('partial');
    expect(report.errors[0].message).toContain('deadline');
  });

  it('exits 3 when the scan cannot start, and turns a crashing check into errors, not a clean report', async () => {
    const refused = io();
    expect(
      await runEngineCli(
        toy(async ({ target, policy }) => void (await resolveTarget(target, policy))),
        ['scan', 'localhost'],
        refused,
      ),
    ).toBe(3);
    expect(JSON.parse(refused.err.at(-1) ?? '{}').message).toContain('loopback');
    expect(
      await runEngineCli(
        toy(async () => Promise.reject(new CouldNotStart('nothing there'))),
        ['scan', 'x'],
        io(),
      ),
    ).toBe(3);
    const crashed = io();
    expect(
      await runEngineCli(
        toy(async () => Promise.reject(new TypeError('boom'))),
        ['scan', 'x'],
        crashed,
      ),
    ).toBe(0);
    const report = JSON.parse(crashed.out.join('')) as EngineReport;
    expect(report.status).toBe('error');
    expect(report.findings).toEqual([]);
    expect(report.checks.every((check) => check.status === 'error' && check.detail.includes('boom'))).toBe(true);
  });

  it('never echoes credentials in a refused target', async () => {
    const streams = io();
    expect(
      await runEngineCli(
        toy(async () => {}),
        ['scan', 'https://user:s3cr3t-token@git.example/x'],
        streams,
      ),
    ).toBe(2);
    const line = streams.err.join('');
    expect(line).not.toContain('s3cr3t-token');
    expect(JSON.parse(streams.err[0]).message).toContain('https://***@git.example/x');
  });

  it('--format text says how many checks passed', async () => {
    const streams = io();
    await runEngineCli(
      toy(
        async ({ report }) =>
          void report
            .pass('toy.a', 'nothing to report on the toy')
            .pass('toy.b', 'nothing to report on the toy')
            .pass('toy.c', 'nothing to report on the toy'),
      ),
      ['scan', 'x', '--format', 'text'],
      streams,
    );
    expect(streams.out.join('')).toContain('checks: 3 passed, 0 failed, 0 errored, 0 skipped');
  });
});

/** A toy whose scope has a list and a switch, with flags of its own that write them (and one setting). */
type Listed = { names: string[]; loud: boolean };
function listed(overrides: Partial<EngineDefinition<Listed, string>>): EngineDefinition<Listed, string> {
  return {
    name: 'listscan',
    version: '0.0.2',
    envPrefix: 'LISTSCAN',
    targetHelp: 'a host name',
    catalogue: () => catalogue,
    scopeSchema: async () => z.strictObject({ names: z.array(z.string().regex(/^[a-z]+$/)).default([]), loud: z.boolean().default(true) }),
    parseTarget: (raw) => ({ ok: true, target: raw }),
    scan: async () => {},
    flags: {
      name: { type: 'string', multiple: true, scopeField: 'names', valueName: 'NAME', help: 'a name to list' },
      quiet: { type: 'boolean', scopeField: 'loud', value: false, help: 'say less' },
      server: { type: 'string', valueName: 'HOST', help: 'where to ask' },
    },
    ...overrides,
  };
}

describe("runEngineCli: an engine's own options", () => {
  it('writes scope fields from its flags, checked by the scope schema, and refuses them beside --scope-json', async () => {
    const seen: unknown[] = [];
    const engine = listed({ scan: async ({ scope, flags }) => void seen.push({ scope, flags }) });
    expect(await runEngineCli(engine, ['scan', 'x', '--name', 'a', '--name', 'b', '--quiet', '--server', 'ns1'], io())).toBe(0);
    expect(await runEngineCli(engine, ['scan', 'x'], io())).toBe(0);
    expect(seen).toEqual([
      { scope: { names: ['a', 'b'], loud: false }, flags: { server: 'ns1' } },
      { scope: { names: [], loud: true }, flags: { server: undefined } },
    ]);

    const dir = await mkdtemp(join(tmpdir(), 'kit-'));
    await writeFile(join(dir, 'scope.json'), '{}');
    const mixed = io();
    expect(await runEngineCli(engine, ['scan', 'x', '--scope-json', join(dir, 'scope.json'), '--quiet'], mixed)).toBe(2);
    expect(JSON.parse(mixed.err[0]).message).toBe('--quiet cannot be given with --scope-json: the scope file says it');
    const bad = io();
    expect(await runEngineCli(engine, ['scan', 'x', '--name', 'NOT A NAME'], bad)).toBe(2);
    expect(JSON.parse(bad.err[0]).message).toContain('names.0');
    const help = io();
    expect(await runEngineCli(engine, ['--help'], help)).toBe(0);
    expect(help.out.join('')).toMatch(/--name NAME \.\.\. +a name to list \(scope names\)/);
    expect(help.out.join('')).toMatch(/--server HOST +where to ask\n/);
    expect(seen).toHaveLength(2);
  });

  it('prepares before "scan started": its refusal is a usage error or could-not-start, its result the scan\'s', async () => {
    const prepared: string[] = [];
    const engine = (prepare: EngineDefinition<Listed, string>['prepare']) =>
      listed({ prepare, scan: async (context) => void prepared.push(context.prepared) });
    const refused = io();
    expect(
      await runEngineCli(
        engine(async () => Promise.reject(new InvalidInput('no such setting'))),
        ['scan', 'x'],
        refused,
      ),
    ).toBe(2);
    expect(refused.err.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ event: 'usage error', message: 'no such setting' }),
    ]);
    const dead = io();
    expect(
      await runEngineCli(
        engine(async () => Promise.reject(new CouldNotStart('no resolver'))),
        ['scan', 'x'],
        dead,
      ),
    ).toBe(3);
    expect(dead.err.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ event: 'could not start', target: 'x', message: 'no resolver' }),
    ]);
    expect(
      await runEngineCli(
        engine(async ({ scope }) => `names ${scope.names.length}`),
        ['scan', 'x', '--name', 'a'],
        io(),
      ),
    ).toBe(0);
    expect(prepared).toEqual(['names 1']);
  });

  it("prints the fields a scan writes itself over the frame's, and its text lines around the kit's", async () => {
    const engine = listed({
      scan: async ({ report }) => {
        report.pass('toy.a', 'read a').pass('toy.b', 'read b').pass('toy.c', 'read c');
        return { surfaces: { extra: 'kept' }, target: 'x (as the engine names it)' };
      },
      textLines: (report) => ({ before: ['BEFORE'], details: [`surfaces: ${JSON.stringify(report.surfaces)}`] }),
    });
    const json = io();
    expect(await runEngineCli(engine, ['scan', 'x'], json)).toBe(0);
    const printed = JSON.parse(json.out.join('')) as EngineReport & { surfaces: unknown };
    expect(printed).toMatchObject({ surfaces: { extra: 'kept' }, target: 'x (as the engine names it)', status: 'ok' });
    expect(printed.checks.map((check) => check.status)).toEqual(['pass', 'pass', 'pass']);
    const text = io();
    expect(await runEngineCli(engine, ['scan', 'x', '--format', 'text'], text)).toBe(0);
    expect(text.out.join('').split('\n').slice(0, 4)).toEqual([
      'BEFORE',
      'listscan 0.0.2: x (as the engine names it) (ok)',
      'checks: 3 passed, 0 failed, 0 errored, 0 skipped',
      'surfaces: {"extra":"kept"}',
    ]);
  });

  it('waits its grace after the deadline for a scan that ends itself with its own partial report, and not without one', async () => {
    const endsAtDeadline: EngineDefinition<Listed, string>['scan'] = async ({ deadline, report }) => {
      report.pass('toy.a', 'read a');
      await new Promise((resolve) => deadline.signal.addEventListener('abort', resolve, { once: true }));
      report.error(['toy.b', 'toy.c'], 'stopped at the deadline by the scan');
      return { note: "the scan's own report" };
    };
    const graced = io();
    expect(await runEngineCli(listed({ scan: endsAtDeadline, deadlineGraceMs: 5_000 }), ['scan', 'x', '--timeout', '0.2'], graced)).toBe(0);
    const own = JSON.parse(graced.out.join('')) as EngineReport & { note?: string };
    expect(own.note).toBe("the scan's own report");
    expect(own.errors.map((error) => error.message)).toEqual([
      'stopped at the deadline by the scan',
      'stopped at the deadline by the scan',
    ]);

    const cut = io();
    expect(await runEngineCli(listed({ scan: endsAtDeadline }), ['scan', 'x', '--timeout', '0.2'], cut)).toBe(0);
    const frames = JSON.parse(cut.out.join('')) as EngineReport & { note?: string };
    expect(frames.note).toBeUndefined();
    const events = (streams: { err: string[] }) => streams.err.map((line) => (JSON.parse(line) as { event: string }).event);
    expect(events(cut)).toContain('deadline passed');
    expect(events(graced)).not.toContain('deadline passed');
  });
});
