/** llmscan's manifest (DESIGN §11, §23; docs/manifests.md): a leaf module of data. */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { catalogue } from './src/catalogue.ts';
import { LlmScope } from './src/scope.ts';

const manifest = {
  name: 'llmscan',
  scanTypes: ['ai_red_team'],
  settingsPrefix: 'LLMSCAN_',
  status: 'beta',
  targetKind: 'http_url',
  scope: () => LlmScope,
  catalogue: () => catalogue,
  resourceClass: 'long',
  // Answers are read whole but bounded (1 MiB each, 4 at once): the process stays near 100 MB.
  memoryMbPerTarget: 256,
  credentialKinds: ['llm_api_key'],
  entry: 'src/bin/llmscan.ts',
  bundleBudgetKiB: 250, // 164 KiB
  // Its tests start their own loopback model servers; the reference runs promptfoo (npm run reference-tools).
  testNeeds: { debian: [], binaries: [], npm: ['promptfoo@0.123.1'] },
  doc: 'docs/llmscan.md',
  summary:
    'AI red team: probes a model endpoint for prompt injection, prompt and data leaks, unsafe output and forbidden tool calls; deterministic hits over attempts',
} as const satisfies EngineManifest;

export default manifest;
