/**
 * An application's own endpoint: the scope's `request_template` with `{{prompt}}` replaced in its
 * strings (the value is substituted before serialising, so the prompt lands JSON-escaped), and the
 * answer read at the dotted `response_path`. The conversation goes as one text: no tool calls.
 */
import { flatten } from '../conversation.ts';
import { BadAnswer, json, type Api } from './api.ts';

function substitute(value: unknown, prompt: string): unknown {
  if (typeof value === 'string') return value.split('{{prompt}}').join(prompt);
  if (Array.isArray(value)) return value.map((item) => substitute(item, prompt));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, prompt)]));
  return value;
}

/** The value at a dotted path (`output.0.text`), or undefined when the path selects nothing. */
export function select(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(part)) current = current[Number(part)];
    else if (current !== null && typeof current === 'object' && Object.hasOwn(current, part))
      current = (current as Record<string, unknown>)[part];
    else return undefined;
  }
  return current;
}

export const httpTemplate: Api = {
  toolCalls: false,
  modelsHeaders: { accept: 'application/json' },
  request(conversation, settings, target) {
    return {
      method: 'POST',
      url: target,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(substitute(settings.requestTemplate, flatten(conversation))),
    };
  },
  parse(response, settings) {
    const selected = select(json(response), settings.responsePath ?? '');
    if (selected === undefined || selected === null)
      throw new BadAnswer(`response_path ${settings.responsePath} selects nothing in the answer`);
    return { text: typeof selected === 'string' ? selected : JSON.stringify(selected), toolCalls: [] };
  },
};
