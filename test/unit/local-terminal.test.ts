import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commandFor } from '../../local/command-line.ts';
import { offerSignInLinks } from '../../local/sign-in-prompt.ts';
import { formatTerminalLine, TerminalLogger, wantsPrettyLogs } from '../../local/terminal-logger.ts';

function capture(logLevel = 'INFO') {
  const lines: Array<[string, string]> = [];
  const logger = new TerminalLogger({
    serviceName: 'local',
    logLevel: logLevel as 'INFO',
    write: (line, level) => lines.push([level, line]),
  });
  return { logger, lines };
}

describe('npm start on a terminal', () => {
  it('prints one short line per entry: time, level, message, then the fields', () => {
    const line = formatTerminalLine({
      timestamp: '2026-03-02T10:04:31.123Z',
      level: 'INFO',
      message: 'scan finished',
      service: 'local',
      sampling_rate: 0,
      scan_id: 'scan_01',
      status: 'succeeded',
      reason: 'two words',
      counts: { high: 1 },
    });
    expect(line).toBe('10:04:31 INFO  scan finished  scan_id=scan_01 status=succeeded reason="two words" counts={"high":1}');
  });

  it('leaves metrics and per-scan steps out at INFO and keeps warnings, errors and milestones', () => {
    const { logger, lines } = capture();
    logger.info('metric', { name: 'ScansFinished', value: 1 });
    logger.info('runner started', { runner: 'mailscan' });
    logger.info('tlsscan finished', { status: 'complete' });
    logger.info('scan started', { scan_id: 'scan_01' });
    logger.info('scan finished', { scan_id: 'scan_01', status: 'failed' });
    logger.warn('request refused by a dependency', { code: 'dispatch_failed' });
    logger.error('local consumer failed', { error: new Error('boom') });
    expect(lines.map(([level, line]) => [level, line.slice(9)])).toEqual([
      ['info', 'INFO  scan started  scan_id=scan_01'],
      ['info', 'INFO  scan finished  scan_id=scan_01 status=failed'],
      ['warn', 'WARN  request refused by a dependency  code=dispatch_failed'],
      ['error', expect.stringMatching(/^ERROR local consumer failed  error=\{"name":"Error","location":.*"message":"boom"/)],
    ]);
  });

  it('shows the steps too at LOG_LEVEL=DEBUG, and child loggers print the same way', () => {
    const { logger, lines } = capture('DEBUG');
    logger.createChild({ persistentKeys: { scan_id: 'scan_02' } }).info('runner started', { runner: 'mailscan' });
    expect(lines.map(([, line]) => line.slice(9))).toEqual(['INFO  runner started  scan_id=scan_02 runner=mailscan']);
  });

  it('is JSON when stdout is not a terminal, or when LOG_FORMAT says so', () => {
    expect(wantsPrettyLogs({}, true)).toBe(true);
    expect(wantsPrettyLogs({}, false)).toBe(false);
    expect(wantsPrettyLogs({ LOG_FORMAT: 'json' }, true)).toBe(false);
    expect(wantsPrettyLogs({ LOG_FORMAT: 'pretty' }, false)).toBe(true);
  });

  it('prints a fresh sign-in link for each Enter, and a hint for anything else', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let made = 0;
    const stop = offerSignInLinks(input, output, async () => `http://127.0.0.1:1/#code=c${++made}`);
    const text: string[] = [];
    output.on('data', (chunk: Buffer) => text.push(chunk.toString()));
    const seen = (needle: string) =>
      new Promise<void>((resolve) => {
        const check = () => (text.join('').includes(needle) ? resolve() : output.once('data', () => setImmediate(check)));
        check();
      });

    input.write('\n');
    await seen('#code=c1');
    input.write('help\n');
    await seen('Press Enter for a new sign-in link.');
    input.write('link\n');
    await seen('#code=c2');
    stop();
    expect(text.join('')).toContain('Sign-in link (works once, admin of tenant "local"):\n  http://127.0.0.1:1/#code=c1\n');
  });

  it('spells out DATA_DIR and PORT for another shell only when they are not the defaults', () => {
    expect(commandFor('npm run session -- --tenant acme', { dataDir: `${process.cwd()}/.data` })).toBe('npm run session -- --tenant acme');
    expect(commandFor('npm run session -- --tenant acme', { dataDir: '/srv/scan data' })).toBe(
      "DATA_DIR='/srv/scan data' npm run session -- --tenant acme",
    );
    expect(commandFor('npm run reconcile', { dataDir: '/srv/d', port: 4000 })).toBe('DATA_DIR=/srv/d PORT=4000 npm run reconcile');
  });
});
