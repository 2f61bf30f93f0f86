import type { Conversation } from '../conversation.ts';
import type { Answer } from '../detectors.ts';
import type { Settings } from '../scope.ts';
import type { HttpRequest, HttpResponse } from '../transport.ts';

/** A 2xx answer that is not what the API's shape says (invalid JSON or SSE, a path that selects nothing). */
export class BadAnswer extends Error {
  override readonly name = 'BadAnswer';
}

/** One wire shape: how a conversation is sent and how an answer is read. */
export interface Api {
  /** Whether the shape carries tool declarations and tool calls. */
  toolCalls: boolean;
  request(conversation: Conversation, settings: Settings, target: URL): HttpRequest;
  parse(response: HttpResponse, settings: Settings): Answer;
  /** Headers of the model-list request (GET /v1/models on the origin). */
  modelsHeaders: Readonly<Record<string, string>>;
}

export function json(response: HttpResponse): unknown {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new BadAnswer('the answer is not JSON');
  }
}

export const isEventStream = (response: HttpResponse): boolean => /^text\/event-stream/i.test(response.headers['content-type'] ?? '');

/** The `data:` payloads of a server-sent event stream, with their event names (WHATWG SSE, bounded by the body's own bound). */
export function sseEvents(text: string): { event: string; data: string }[] {
  const events: { event: string; data: string }[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (!['id', 'retry'].includes(field))
        throw new BadAnswer(`the event stream has a line that is not SSE: ${JSON.stringify(line.slice(0, 80))}`);
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

export function parseJsonData(data: string): Record<string, unknown> {
  try {
    const value = JSON.parse(data) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new BadAnswer(`an event's data is not a JSON object: ${JSON.stringify(data.slice(0, 80))}`);
}

export const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** A field that should be a string, as one ('' when it is not). */
export const str = (value: unknown): string => (typeof value === 'string' ? value : '');
