import type { EndpointProbe } from './probe.ts';

/** llm.endpoint: is the endpoint, and its model list, open to anyone who reaches it. */
export const endpointProbes: readonly EndpointProbe[] = [
  { id: 'endpoint.completion_without_credential', rule: 'llm.endpoint.unauthenticated', owasp: ['LLM10:2025'], request: 'completion' },
  { id: 'endpoint.models_without_credential', rule: 'llm.endpoint.models_exposed', owasp: ['LLM10:2025'], request: 'models' },
];

/** The prompt of the unauthenticated completion: short, so an open endpoint costs its owner little. */
export const ENDPOINT_PROMPT = 'Reply with the single word: ready';
