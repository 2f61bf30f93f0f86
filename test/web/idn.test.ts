import { domainToUnicode } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodePunycodeLabel, displayTarget, toUnicodeHost } from '../../web/src/idn.ts';

describe('the UI shows internationalised domains in Unicode', () => {
  const hosts = [
    'xn--bcher-kva.example',
    'xn--mnchen-3ya.de',
    'mail.xn--fiqs8s',
    'xn--80ak6aa92e.com',
    'xn--wgv71a119e.jp',
    'xn--ls8h.la',
    'xn--caf-dma.xn--r-0fa.example',
    'xn--d1acpjx3f.xn--p1ai',
    'example.com',
  ];

  it.each(hosts)('decodes %s exactly as Node does', (host) => {
    expect(toUnicodeHost(host)).toBe(domainToUnicode(host));
  });

  it('leaves invalid punycode as it was', () => {
    expect(decodePunycodeLabel('99999999999')).toBeNull();
    expect(toUnicodeHost('xn--99999999999.example')).toBe('xn--99999999999.example');
  });

  it('decodes the host inside a URL or after a port-less hostname', () => {
    expect(displayTarget('https://git.xn--bcher-kva.example/org/repo')).toBe('https://git.bücher.example/org/repo');
    expect(displayTarget('xn--mnchen-3ya.de:443')).toBe('münchen.de:443');
    expect(displayTarget('203.0.113.0/28')).toBe('203.0.113.0/28');
  });
});
