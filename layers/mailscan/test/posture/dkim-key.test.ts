import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { analyseDkimKey, isDkimRecord } from '../../src/posture/dkim-key.ts';
import { selectorsToProbe, DEFAULT_DKIM_SELECTORS } from '../../src/posture/dkim-selectors.ts';

const rsaKey = (bits: number, type: 'spki' | 'pkcs1') =>
  generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ format: 'der', type }).toString('base64');

describe('DKIM key analysis', () => {
  it('reads the modulus of SPKI and bare PKCS#1 RSA keys', () => {
    expect(analyseDkimKey(`v=DKIM1; k=rsa; p=${rsaKey(1024, 'spki')}`)).toMatchObject({ key_type: 'rsa', bits: 1024, revoked: false });
    expect(analyseDkimKey(`v=DKIM1; p=${rsaKey(1024, 'pkcs1')}`)).toMatchObject({ key_type: 'rsa', bits: 1024 });
  });

  it('reports the hash algorithms and testing flag', () => {
    expect(analyseDkimKey(`v=DKIM1; h=sha1:sha256; t=y; p=${rsaKey(1024, 'spki')}`)).toMatchObject({
      hash_algorithms: ['sha1', 'sha256'],
      testing: true,
    });
  });

  it('treats an empty p= as a revoked key', () => {
    expect(analyseDkimKey('v=DKIM1; p=')).toMatchObject({ revoked: true, bits: null });
  });

  it('reports an unreadable key as a problem, not an exception', () => {
    expect(analyseDkimKey('v=DKIM1; k=rsa; p=bm90IGEga2V5')).toMatchObject({
      bits: null,
      problem: expect.stringContaining('unreadable rsa key'),
    });
    expect(analyseDkimKey('v=DKIM1; k=ed25519; p=AAAA')).toMatchObject({ bits: null, problem: expect.stringContaining('32 bytes') });
  });

  it('recognises key records with or without v=DKIM1', () => {
    expect(isDkimRecord('k=rsa; p=abc')).toBe(true);
    expect(isDkimRecord('v=spf1 -all')).toBe(false);
  });
});

describe('DKIM selectors to probe', () => {
  it('adds command-line selectors to the built-in list, or to the configured list that replaces it', () => {
    expect(selectorsToProbe(undefined, ['Brand2024'])).toEqual([...DEFAULT_DKIM_SELECTORS, 'brand2024']);
    expect(selectorsToProbe(['one', 'two'], ['two', 'three'])).toEqual(['one', 'two', 'three']);
  });
});
