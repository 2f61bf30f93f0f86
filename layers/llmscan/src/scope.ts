/**
 * The ai_red_team scan's scope (DESIGN §23), the one schema the API (through the manifest) and the
 * CLI's --scope-json both parse. Defaults live in `DEFAULTS`, applied by the engine, so the stored
 * scope stays what the tenant wrote.
 */
import * as z from 'zod';
import { CREDENTIAL_ALIAS } from '../../../lib/credential-kinds.ts';
import { FAMILIES } from './catalogue.ts';

export const DEFAULTS = { api: 'openai_chat', max_requests: 150, max_tokens: 256, rate: 1, repeats: 3 } as const;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Whether a JSON value holds the `{{prompt}}` placeholder in one of its strings. */
export function holdsPrompt(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('{{prompt}}');
  if (Array.isArray(value)) return value.some(holdsPrompt);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsPrompt);
  return false;
}

const Canary = z
  .string()
  .min(8, 'a canary needs at least 8 characters, so that it cannot appear by chance')
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'a canary is printable ASCII without spaces');

export const LlmScope = z.lazy(() =>
  z
    .strictObject({
      /** The wire shape of the endpoint. */
      api: z.enum(['openai_chat', 'anthropic_messages', 'http_template']).optional(),
      /** The `model` field sent (openai_chat, anthropic_messages); left out when absent. */
      model: z.string().min(1).max(200).optional(),
      /** Ask for server-sent events (openai_chat, anthropic_messages). */
      stream: z.boolean().optional(),
      /** http_template: the JSON body, whose strings hold `{{prompt}}` (inserted JSON-escaped). */
      request_template: z
        .json()
        .refine((value) => JSON.stringify(value).length <= 20_000, 'the request template is larger than 20,000 characters')
        .optional(),
      /** http_template: a dotted path into the answer (`output.0.text`). */
      response_path: z.string().max(500).regex(PATH, 'must be a dotted path such as choices.0.text').optional(),
      /** An `llm_api_key` credential of the tenant (§16), by alias: sent to the target only if its host is allowed. */
      credential: z
        .string()
        .regex(CREDENTIAL_ALIAS, 'must be the alias of an llm_api_key credential of the tenant, not a key')
        .describe(
          'The alias of an llm_api_key credential of the tenant; sent as Authorization: Bearer (or the header it names) to allowed hosts only.',
        )
        .optional(),
      /** A string the tenant planted in its system prompt. */
      system_prompt_canary: Canary.describe(
        'A unique string you planted in your system prompt (e.g. CANARY-7f3a9c21): if it appears in an answer, raw, spaced, reversed or base64, the prompt leaked. Without it the system-prompt check is skipped.',
      ).optional(),
      /** Strings planted in retrieval data or tools. */
      secret_canaries: z
        .array(Canary)
        .max(20)
        .describe('Unique fake secrets you planted in your retrieval documents or tool results; one appearing in an answer is a data leak.')
        .optional(),
      /** The application's tools; a call of a forbidden one is a finding (never executed). */
      tools: z
        .array(z.strictObject({ name: z.string().regex(TOOL_NAME, 'a tool name is 1-64 of A-Z a-z 0-9 _ -'), forbidden: z.boolean() }))
        .max(32)
        .describe("Your application's tools, by name: a call of a forbidden one is a finding (no tool is ever run).")
        .optional(),
      /** Which probe families run (the rule id's middle segment); all by default. */
      families: z.array(z.enum(FAMILIES)).min(1).describe('The probe families to run (all by default).').optional(),
      max_requests: z.int().min(1).max(1000).describe('Requests in all, retries included (default 150).').optional(),
      max_tokens: z.int().min(1).max(4096).describe('max_tokens asked of each completion (default 256).').optional(),
      /** Requests a second. */
      rate: z.number().positive().max(10).describe('Requests a second at most (default 1).').optional(),
      repeats: z.int().min(1).max(10).describe('Attempts per probe (default 3); findings are hits over attempts.').optional(),
      /** The seed the prompts and nonces are drawn from; random (and reported) when absent. */
      seed: z.int().min(0).max(0xffff_ffff).describe('Same seed, same prompts: set it to repeat a scan exactly.').optional(),
    })
    .superRefine((scope, context) => {
      const template = scope.api === 'http_template';
      if (template && scope.request_template === undefined)
        context.addIssue({ code: 'custom', path: ['request_template'], message: 'http_template needs a request_template' });
      if (template && scope.request_template !== undefined && !holdsPrompt(scope.request_template)) {
        context.addIssue({ code: 'custom', path: ['request_template'], message: 'the request_template holds no {{prompt}}' });
      }
      if (template && scope.response_path === undefined)
        context.addIssue({ code: 'custom', path: ['response_path'], message: 'http_template needs a response_path' });
      if (!template && (scope.request_template !== undefined || scope.response_path !== undefined)) {
        context.addIssue({ code: 'custom', path: ['api'], message: 'request_template and response_path belong to api http_template' });
      }
      if (template && scope.stream) context.addIssue({ code: 'custom', path: ['stream'], message: 'http_template does not stream' });
      const names = (scope.tools ?? []).map((tool) => tool.name);
      if (new Set(names).size !== names.length) context.addIssue({ code: 'custom', path: ['tools'], message: 'tool names repeat' });
    }),
);
export type LlmScope = z.infer<typeof LlmScope>;

/** The scope with its defaults filled in. */
export interface Settings {
  api: 'openai_chat' | 'anthropic_messages' | 'http_template';
  model?: string;
  stream: boolean;
  requestTemplate?: unknown;
  responsePath?: string;
  systemPromptCanary?: string;
  secretCanaries: readonly string[];
  tools: readonly { name: string; forbidden: boolean }[];
  families: ReadonlySet<string>;
  maxRequests: number;
  maxTokens: number;
  rate: number;
  repeats: number;
  seed?: number;
}

export function settingsOf(scope: LlmScope): Settings {
  return {
    api: scope.api ?? DEFAULTS.api,
    model: scope.model,
    stream: scope.stream ?? false,
    requestTemplate: scope.request_template,
    responsePath: scope.response_path,
    systemPromptCanary: scope.system_prompt_canary,
    secretCanaries: scope.secret_canaries ?? [],
    tools: scope.tools ?? [],
    families: new Set(scope.families ?? FAMILIES),
    maxRequests: scope.max_requests ?? DEFAULTS.max_requests,
    maxTokens: scope.max_tokens ?? DEFAULTS.max_tokens,
    rate: scope.rate ?? DEFAULTS.rate,
    repeats: scope.repeats ?? DEFAULTS.repeats,
    seed: scope.seed,
  };
}
