/** Every probe family, in the order a scan sends them (one file per family). */
import { agencyProbes } from './agency.ts';
import { dataProbes } from './data.ts';
import { jailbreakProbes } from './jailbreak.ts';
import { outputProbes } from './output.ts';
import { piiProbes } from './pii.ts';
import type { Probe } from './probe.ts';
import { promptInjectionProbes } from './prompt-injection.ts';
import { systemPromptProbes } from './system-prompt.ts';

export { endpointProbes, ENDPOINT_PROMPT } from './endpoint.ts';
export type { Probe, EndpointProbe, DetectorKind, Encoding } from './probe.ts';

export const PROBES: readonly Probe[] = [
  ...promptInjectionProbes,
  ...systemPromptProbes,
  ...dataProbes,
  ...piiProbes,
  ...outputProbes,
  ...jailbreakProbes,
  ...agencyProbes,
];
