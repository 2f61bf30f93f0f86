/**
 * llmscan against the reference: promptfoo runs the same seeded prompts (static test cases with
 * contains and regex assertions) against the same loopback assistants, and the hits per probe
 * agree. The fake's log shows both sent the same prompts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBES } from '../src/probes/index.ts';
import { startFakeModel, type FakeModelServer } from './helpers/fake-model-server.ts';
import { DOCUMENTS, SECRET_CANARY, SYSTEM_CANARY, SYSTEM_PROMPT } from './helpers/planted.ts';
import { inOverlap, PROMPTFOO, referenceCases, runPromptfoo } from './helpers/promptfoo.ts';
import { runLlmscan } from './helpers/run-scan.ts';

const SEED = 2026;
const REPEATS = 2;
const installed = PROMPTFOO !== undefined;
if (!installed) {
  console.warn('SKIPPED: promptfoo is not installed (npm run reference-tools): the llmscan reference comparison is skipped');
}
const overlap = PROBES.filter(inOverlap).map((probe) => probe.id);

function userTexts(server: FakeModelServer, from: number): string[] {
  return server.log
    .slice(from)
    .filter((entry) => entry.method === 'POST')
    .map((entry) => ((entry.body?.messages as { content: string }[] | undefined) ?? []).at(-1)?.content ?? '')
    .sort();
}

describe.skipIf(!installed)('llmscan and promptfoo on the same prompts', () => {
  let work: string;
  let vulnerable: FakeModelServer;
  let hardened: FakeModelServer;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'llmscan-reference-'));
    vulnerable = await startFakeModel({ behaviour: 'vulnerable', systemPrompt: SYSTEM_PROMPT, documents: DOCUMENTS });
    hardened = await startFakeModel({ behaviour: 'hardened', systemPrompt: SYSTEM_PROMPT, documents: DOCUMENTS });
  });
  afterAll(async () => {
    await Promise.all([vulnerable?.close(), hardened?.close()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  for (const behaviour of ['vulnerable', 'hardened'] as const) {
    it(`agrees probe by probe on the ${behaviour} assistant`, async () => {
      const server = behaviour === 'vulnerable' ? vulnerable : hardened;
      const scope = {
        system_prompt_canary: SYSTEM_CANARY,
        secret_canaries: [SECRET_CANARY],
        seed: SEED,
        repeats: REPEATS,
        rate: 10,
        max_tokens: 256,
        families: ['prompt_injection', 'system_prompt', 'data', 'output', 'jailbreak'],
      };
      const cases = referenceCases(SEED, REPEATS, { system: SYSTEM_CANARY, secrets: [SECRET_CANARY] });

      const scanFrom = server.log.length;
      const scan = await runLlmscan(`${server.origin}/v1/chat/completions`, scope);
      const scanSent = userTexts(server, scanFrom);
      const referenceFrom = server.log.length;
      const reference = await runPromptfoo(cases, {
        baseUrl: `${server.origin}/v1`,
        model: 'fake-model-1',
        maxTokens: 256,
        concurrency: 4,
        work,
      });
      const referenceSent = userTexts(server, referenceFrom);

      const llmscanHits = new Map<string, number>();
      for (const finding of scan.report?.findings ?? []) {
        for (const entry of (finding.evidence.probes ?? []) as { probe: string; hits: number }[]) llmscanHits.set(entry.probe, entry.hits);
      }
      const byProbe = (hits: Map<string, number>) => Object.fromEntries(overlap.map((id) => [id, hits.get(id) ?? 0]));
      expect(reference.errors).toBe(0);
      expect(reference.attempts).toBe(overlap.length * REPEATS);
      expect(byProbe(reference.hits)).toEqual(byProbe(llmscanHits));
      const expected = behaviour === 'vulnerable' ? REPEATS : 0;
      expect(Object.values(byProbe(llmscanHits))).toEqual(overlap.map(() => expected));
      // Every prompt promptfoo sent, llmscan sent too (llmscan sends more: the base64 probes).
      expect(referenceSent.every((text) => scanSent.includes(text))).toBe(true);
    });
  }
});
