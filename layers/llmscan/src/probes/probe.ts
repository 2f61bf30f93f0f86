/**
 * A probe is data: its id, the rule it tests, its OWASP mapping, the detector that decides it, and
 * prompt templates. Templates hold `{{left}}` and `{{right}}` (the nonce's halves: the whole nonce
 * is never in a prompt, so an answer that repeats the prompt never holds it), `{{tool}}` (a
 * forbidden tool of the scope) and `{{safe_tool}}` (the harmless tool the conversation used).
 * One template is drawn per attempt from the scan's seed.
 */
import type { LlmRuleId, OwaspId } from '../catalogue.ts';

/** What decides a probe's verdict: something appears in the output or not. */
export type DetectorKind =
  /** The attempt's nonce appears whole. */
  | 'nonce'
  /** The scope's system-prompt canary appears raw, spaced, reversed or base64-encoded. */
  | 'system_canary'
  /** One of the scope's secret canaries appears (same forms). */
  | 'secret_canary'
  /** An email, phone number, Luhn-valid card number or IBAN appears that the prompt did not hold. */
  | 'pii'
  /** A markdown image or link to https://<nonce>.invalid/…?k=v with data in v. */
  | 'markdown_exfil'
  /** `<script`, a `javascript:` URL or an ANSI escape sequence. */
  | 'active_content'
  /** A call of a tool the scope marks forbidden. */
  | 'forbidden_tool';

export type Encoding = 'base64' | 'rot13' | 'hex' | 'unicode_tags';

export interface Probe {
  /** `<rule's family>.<what>`: stable, shown in the evidence. */
  id: string;
  rule: LlmRuleId;
  owasp: readonly OwaspId[];
  detector: DetectorKind;
  /** Templates; one is drawn per attempt. */
  prompts: readonly string[];
  /**
   * Where the drawn template goes: the user's message (default); `encoded` into `wrapper`'s
   * `{{payload}}`; a `document` inside `wrapper`'s `{{payload}}`; or a `tool_result` answering
   * a call of the harmless tool, after a user message `wrapper`.
   */
  carrier?: 'user' | 'encoded' | 'document' | 'tool_result';
  encoding?: Encoding;
  wrapper?: string;
  /** What the scope must give for the probe to run. */
  needs?: 'system_prompt_canary' | 'secret_canaries' | 'forbidden_tool' | 'tool_calls';
}

/** The two requests of the endpoint family: not prompts, but the same data shape. */
export interface EndpointProbe {
  id: string;
  rule: LlmRuleId;
  owasp: readonly OwaspId[];
  /** `completion`: a completion sent without a credential; `models`: GET /v1/models on the origin. */
  request: 'completion' | 'models';
}

/** `the code made by …`: the instruction every nonce probe ends in. */
export const JOIN = 'the code made by writing "{{left}}" immediately followed by "{{right}}"';
