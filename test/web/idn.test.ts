import { domainToASCII, domainToUnicode } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodePunycodeLabel, displayTarget, toUnicodeHost } from '../../web/src/idn.ts';

describe('the UI shows internationalised domains in Unicode', () => {
  const hosts = [
    'xn--bcher-kva.example',
    'xn--mnchen-3ya.de',
    'mail.xn--fiqs8s',
    'xn--wgv71a119e.jp',
    'xn--ls8h.la',
    'xn--caf-dma.xn--r-0fa.example',
    'xn--d1acpjx3f.xn--p1ai',
    'example.com',
  ];

  it.each(hosts)('decodes %s exactly as Node does', (host) => {
    expect(toUnicodeHost(host)).toBe(domainToUnicode(host));
  });

  // Issue 33 item 12: browsers show these in punycode, so that no target looks like another.
  it.each([
    ['аpple.com', 'a Cyrillic а among Latin letters'],
    ['аррӏе.com', 'all Cyrillic, every letter drawn like a Latin one'],
    ['раураӏ.com', 'all Cyrillic, every letter drawn like a Latin one'],
    ['ѕсоре.com', 'all Cyrillic, every letter drawn like a Latin one'],
    ['gοοgle.com', 'Greek ο among Latin letters'],
  ])('keeps %s in punycode (%s)', (unicode) => {
    const ascii = domainToASCII(unicode);
    expect(ascii).toMatch(/xn--/);
    expect(toUnicodeHost(ascii)).toBe(ascii);
    expect(displayTarget(`https://${ascii}/login`)).toBe(`https://${ascii}/login`);
  });

  it('decodes a label of one script, and the CJK mixes with Latin', () => {
    for (const unicode of ['яндекс.рф', 'bücher.example', '日本語テキスト.jp', 'abc中文.com', 'ελληνικά.gr'])
      expect(toUnicodeHost(domainToASCII(unicode))).toBe(unicode);
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
