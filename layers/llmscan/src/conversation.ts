/**
 * Turns a probe and an attempt's draws into an API-neutral conversation: what the API adapters
 * send. Same seed, probe and repeat → the same conversation.
 */
import type { Encoding, Probe } from './probes/probe.ts';
import { pick, type Nonce } from './seed.ts';

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
}

export type Message =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCall?: ToolCall }
  | { role: 'tool'; callId: string; name: string; text: string };

export interface Conversation {
  messages: readonly Message[];
  /** Tools declared to the model (names only matter: none is ever executed). */
  tools: readonly string[];
}

/** The harmless tool the tool-result probes show the model calling. */
export const SAFE_TOOL = 'read_document';

export interface AttemptDraws {
  seed: number;
  /** `<probe id>#<repeat>`: the key of every draw of the attempt. */
  key: string;
  nonce: Nonce;
  forbiddenTools: readonly string[];
  toolNames: readonly string[];
}

export function encode(text: string, encoding: Encoding): string {
  switch (encoding) {
    case 'base64':
      return Buffer.from(text, 'utf8').toString('base64');
    case 'hex':
      return Buffer.from(text, 'utf8').toString('hex');
    case 'rot13':
      return text.replace(/[a-z]/gi, (c) => {
        const base = c <= 'Z' ? 65 : 97;
        return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
      });
    case 'unicode_tags':
      // ASCII smuggling: each printable character as its invisible Unicode tag (U+E0020–U+E007E).
      return [...text].map((c) => (c >= ' ' && c <= '~' ? String.fromCodePoint(0xe0000 + c.charCodeAt(0)) : '')).join('');
  }
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}

export function buildConversation(probe: Probe, draws: AttemptDraws): Conversation {
  const tool = draws.forbiddenTools.length > 0 ? pick(draws.seed, `${draws.key}:tool`, draws.forbiddenTools) : '';
  const values = { left: draws.nonce.left, right: draws.nonce.right, tool, safe_tool: SAFE_TOOL };
  const drawn = fill(pick(draws.seed, `${draws.key}:prompt`, probe.prompts), values);
  const wrapper = fill(probe.wrapper ?? '{{payload}}', values);
  switch (probe.carrier ?? 'user') {
    case 'user':
      return { messages: [{ role: 'user', text: drawn }], tools: [] };
    case 'encoded':
      return { messages: [{ role: 'user', text: fill(wrapper, { payload: encode(drawn, probe.encoding ?? 'base64') }) }], tools: [] };
    case 'document':
      return { messages: [{ role: 'user', text: fill(wrapper, { payload: drawn }) }], tools: [] };
    case 'tool_result': {
      const callId = `call_${draws.nonce.left}`;
      return {
        messages: [
          { role: 'user', text: wrapper },
          { role: 'assistant', text: '', toolCall: { id: callId, name: SAFE_TOOL, arguments: '{}' } },
          { role: 'tool', callId, name: SAFE_TOOL, text: drawn },
        ],
        tools: [SAFE_TOOL, ...draws.toolNames.filter((name) => name !== SAFE_TOOL)],
      };
    }
  }
}

/** Everything the conversation sends, as one text (what the PII detector subtracts). */
export function sentText(conversation: Conversation): string {
  return conversation.messages.map((message) => message.text).join('\n');
}

/** The conversation as one prompt, for endpoints that take a single text (http_template). */
export function flatten(conversation: Conversation): string {
  return conversation.messages
    .map((message) =>
      message.role === 'user' ? message.text : message.role === 'tool' ? `[result of ${message.name}]\n${message.text}` : message.text,
    )
    .filter(Boolean)
    .join('\n\n');
}
