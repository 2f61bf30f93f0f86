import { describe, expect, it } from 'vitest';
import { FAMILIES, permutationsByFamily, permute, splitDomain, type Family } from '../../src/leak/permutations.ts';

const family = (domain: string, name: Family, options = {}): string[] =>
  [...(permutationsByFamily(domain, { families: [name], ...options }).get(name) ?? [])].sort();

describe('the lookalike permutation engine', () => {
  it('splits a domain at its public suffix', () => {
    expect(splitDomain('mail.example.co.uk')).toEqual({ subdomain: 'mail', name: 'example', suffix: 'co.uk' });
    expect(splitDomain('acme.test')).toEqual({ subdomain: '', name: 'acme', suffix: 'test' });
    expect(splitDomain('xn--bcher-kva.de')).toEqual({ subdomain: '', name: 'bücher', suffix: 'de' });
  });

  it('addition appends one letter or digit', () => {
    const names = family('abc.com', 'addition');
    expect(names).toHaveLength(36);
    expect(names).toContain('abc0.com');
    expect(names).toContain('abcz.com');
  });

  it('bitsquatting flips one bit into another hostname character', () => {
    // 'a' (0x61) flips to 'c' (0x63, bit 1), 'e' (0x65, bit 2), 'i' (0x69, bit 3), 'q' (0x71, bit 4), 'A'→lowercased 'a' is excluded.
    const names = family('ab.com', 'bitsquatting');
    expect(names).toEqual(expect.arrayContaining(['cb.com', 'eb.com', 'ib.com', 'qb.com', 'ac.com', 'af.com']));
    expect(names.every((name) => /^[a-z0-9-]+\.com$/.test(name))).toBe(true);
  });

  it('cyrillic swaps every letter for its Cyrillic twin, emitted as punycode, only when all letters have one', () => {
    expect(family('abc.com', 'cyrillic')).toEqual(['xn--80a8a6a.com']);
    expect(family('fox.com', 'cyrillic')).toEqual([]);
  });

  it('homoglyph emits internationalised names as punycode and ASCII look-alikes as they are', () => {
    const names = family('google.com', 'homoglyph');
    expect(names).toContain('g00gle.com');
    expect(names).toContain('googie.com');
    expect(names).toContain('xn--oogle-qmc.com'); // ɢoogle
    expect(names.every((name) => /^[a-z0-9.-]+$/.test(name))).toBe(true);
    expect(names).not.toContain('google.com');
  });

  it('hyphenation inserts a hyphen between two characters', () => {
    expect(family('abc.com', 'hyphenation')).toEqual(['a-bc.com', 'ab-c.com']);
  });

  it('insertion adds a keyboard neighbour before or after an inner character', () => {
    const names = family('abc.com', 'insertion');
    // 'b' neighbours on QWERTY are v, g, h, n.
    expect(names).toEqual(expect.arrayContaining(['avbc.com', 'abvc.com', 'agbc.com', 'abnc.com']));
    expect(names.every((name) => name.startsWith('a') && name.endsWith('c.com'))).toBe(true);
  });

  it('omission drops one character', () => {
    expect(family('abcd.com', 'omission')).toEqual(['abc.com', 'abd.com', 'acd.com', 'bcd.com']);
  });

  it('repetition doubles one character', () => {
    expect(family('abc.com', 'repetition')).toEqual(['aabc.com', 'abbc.com', 'abcc.com']);
  });

  it('replacement swaps a character for a keyboard neighbour on QWERTY, QWERTZ or AZERTY', () => {
    const names = family('ab.com', 'replacement');
    expect(names).toContain('qb.com'); // QWERTY neighbour of a
    expect(names).toContain('yb.com'); // QWERTZ neighbour of a
    expect(names).toContain('1b.com'); // AZERTY neighbour of a
    expect(names).toContain('av.com');
  });

  it('subdomain splits the name with a dot', () => {
    expect(family('abcd.com', 'subdomain')).toEqual(['a.bcd.com', 'ab.cd.com']);
  });

  it('transposition swaps two neighbours', () => {
    expect(family('abc.com', 'transposition')).toEqual(['acb.com', 'bac.com']);
  });

  it('vowel-swap replaces a vowel with another', () => {
    expect(family('bat.com', 'vowel-swap')).toEqual(['bet.com', 'bit.com', 'bot.com', 'but.com']);
  });

  it('dictionary joins phishing words to the name', () => {
    expect(family('acme.com', 'dictionary', { dictionary: ['login'] })).toEqual([
      'acme-login.com',
      'acmelogin.com',
      'login-acme.com',
      'loginacme.com',
    ]);
  });

  it('tld-swap moves the name to other TLDs, including two-label suffixes', () => {
    expect(family('acme.com', 'tld-swap', { tlds: ['com', 'net', 'co.uk'] })).toEqual(['acme.co.uk', 'acme.net']);
  });

  it('various plays with the suffix', () => {
    expect(family('acme.co.uk', 'various')).toEqual(['acme.uk', 'acmeco.uk']);
    expect(family('acme.de', 'various')).toEqual(['acme-de.com', 'acmede.de']);
  });

  it('keeps the subdomain of a subdomain target', () => {
    expect(family('mail.abc.com', 'transposition')).toEqual(['mail.acb.com', 'mail.bac.com']);
  });

  it('never returns the domain itself or an invalid name, and tags each name with its first family', () => {
    const all = permute('example.com');
    expect(all.some((item) => item.domain === 'example.com')).toBe(false);
    expect(new Set(all.map((item) => item.domain)).size).toBe(all.length);
    expect(all.every((item) => /^(?=.{4,253}$)((?!-)[a-z0-9-]{1,63}(?<!-)\.)+[a-z0-9-]{2,63}$/.test(item.domain))).toBe(true);
    expect(new Set(all.map((item) => item.family))).toEqual(new Set(FAMILIES));
    expect(all.find((item) => item.domain === 'xn--xample-9ua.com')).toEqual({
      domain: 'xn--xample-9ua.com',
      family: 'homoglyph',
      unicode: 'éxample.com',
    });
  });

  it('is deterministic', () => {
    expect(permute('acme.test')).toEqual(permute('acme.test'));
  });
});
