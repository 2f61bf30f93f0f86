import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parsePortSpec, PortSpecError } from '../src/ports/port-spec.ts';
import { TOP_TCP_PORTS } from '../src/ports/top-tcp-ports.ts';

const NMAP = '/usr/bin/nmap';

describe('parsePortSpec', () => {
  it('reads the legacy Continuous Network texts', () => {
    expect(parsePortSpec('22,80,443')).toEqual([22, 80, 443]);
    expect(parsePortSpec('1-1024')).toHaveLength(1024);
    expect(parsePortSpec(' 443, 22 80\t8000-8002 ')).toEqual([22, 80, 443, 8000, 8001, 8002]);
  });

  it('takes the empty text as top100, and the named sets in frequency order', () => {
    expect(parsePortSpec('')).toEqual(TOP_TCP_PORTS.slice(0, 100));
    expect(parsePortSpec('top100').slice(0, 5)).toEqual([80, 23, 443, 21, 22]);
    expect(parsePortSpec('top1000')).toHaveLength(1000);
  });

  it('reads lists of ports and range texts, without repeats', () => {
    expect(parsePortSpec([443, '22', '20-22', 443])).toEqual([20, 21, 22, 443]);
  });

  it.each([['0'], ['65536'], ['22,abc'], ['90-80'], ['1.5'], ['-5'], ['22;80']])('refuses %j', (spec) => {
    expect(() => parsePortSpec(spec)).toThrow(PortSpecError);
  });

  it('refuses an empty list and a non-integer port', () => {
    expect(() => parsePortSpec([])).toThrow(PortSpecError);
    expect(() => parsePortSpec([22.5])).toThrow(PortSpecError);
  });
});

describe('the committed top ports', () => {
  it.skipIf(!existsSync(NMAP))('are the ports nmap --top-ports scans (nmap installed)', async () => {
    for (const count of [100, 1000]) {
      // -sL would not scan; a connect scan of loopback with no retries prints the port list it used.
      const { stdout } = await promisify(execFile)(NMAP, [
        '-sT',
        '-Pn',
        '-n',
        '--max-retries',
        '0',
        '--top-ports',
        String(count),
        '-oX',
        '-',
        '127.0.0.1',
      ]);
      const services = /<scaninfo[^>]*services="([^"]+)"/.exec(stdout)?.[1];
      expect(services).toBeDefined();
      const expected = parsePortSpec(services!);
      expect([...TOP_TCP_PORTS.slice(0, count)].sort((a, b) => a - b)).toEqual(expected);
    }
  });
});
