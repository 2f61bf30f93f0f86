/** OpenAI chat completions (POST /v1/chat/completions): JSON or server-sent events, tool calls. */
import type { ToolCall } from '../conversation.ts';
import type { Answer } from '../detectors.ts';
import { asRecord, BadAnswer, isEventStream, json, parseJsonData, sseEvents, str, type Api } from './api.ts';

function usageOf(value: unknown): Answer['usage'] {
  const usage = asRecord(value);
  if (!usage) return undefined;
  return { inputTokens: Number(usage.prompt_tokens ?? 0), outputTokens: Number(usage.completion_tokens ?? 0) };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof asRecord(part)?.text === 'string' ? (asRecord(part)!.text as string) : '')).join('');
  return '';
}

function parseJson(body: unknown): Answer {
  const choice = asRecord(Array.isArray(asRecord(body)?.choices) ? (asRecord(body)!.choices as unknown[])[0] : undefined);
  const message = asRecord(choice?.message);
  if (!message) throw new BadAnswer('the answer has no choices[0].message');
  const toolCalls: ToolCall[] = (Array.isArray(message.tool_calls) ? message.tool_calls : []).flatMap((raw: unknown) => {
    const call = asRecord(raw);
    const fn = asRecord(call?.function);
    return typeof fn?.name === 'string'
      ? [
          {
            id: str(call?.id),
            name: fn.name,
            arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
          },
        ]
      : [];
  });
  return {
    text: contentText(message.content) + (typeof message.refusal === 'string' ? message.refusal : ''),
    toolCalls,
    usage: usageOf(asRecord(body)?.usage),
  };
}

function parseStream(text: string): Answer {
  let content = '';
  let done = false;
  let usage: Answer['usage'];
  const calls = new Map<number, ToolCall>();
  for (const { data } of sseEvents(text)) {
    if (data === '[DONE]') {
      done = true;
      break;
    }
    const chunk = parseJsonData(data);
    if (chunk.error) throw new BadAnswer(`the stream carries an error: ${JSON.stringify(chunk.error).slice(0, 200)}`);
    usage = usageOf(chunk.usage) ?? usage;
    const delta = asRecord(asRecord(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined)?.delta);
    if (!delta) continue;
    content += contentText(delta.content);
    for (const raw of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      const part = asRecord(raw);
      const index = Number(part?.index ?? 0);
      const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
      const fn = asRecord(part?.function);
      if (typeof part?.id === 'string') call.id = part.id;
      if (typeof fn?.name === 'string') call.name += fn.name;
      if (typeof fn?.arguments === 'string') call.arguments += fn.arguments;
      calls.set(index, call);
    }
  }
  if (!done) throw new BadAnswer('the event stream ended without data: [DONE]');
  return { text: content, toolCalls: [...calls.values()].filter((call) => call.name), usage };
}

export const openaiChat: Api = {
  toolCalls: true,
  modelsHeaders: { accept: 'application/json' },
  request(conversation, settings, target) {
    const messages = conversation.messages.map((message) => {
      if (message.role === 'user') return { role: 'user', content: message.text };
      if (message.role === 'tool') return { role: 'tool', tool_call_id: message.callId, content: message.text };
      return message.toolCall
        ? {
            role: 'assistant',
            content: message.text || null,
            tool_calls: [
              {
                id: message.toolCall.id,
                type: 'function',
                function: { name: message.toolCall.name, arguments: message.toolCall.arguments },
              },
            ],
          }
        : { role: 'assistant', content: message.text };
    });
    const body: Record<string, unknown> = {
      ...(settings.model ? { model: settings.model } : {}),
      messages,
      max_tokens: settings.maxTokens,
    };
    if (conversation.tools.length > 0) {
      body.tools = conversation.tools.map((name) => ({
        type: 'function',
        function: {
          name,
          description: `The application's ${name} tool.`,
          parameters: { type: 'object', properties: {}, additionalProperties: true },
        },
      }));
    }
    if (settings.stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
    return {
      method: 'POST',
      url: target,
      headers: { 'content-type': 'application/json', accept: settings.stream ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify(body),
    };
  },
  parse(response) {
    return isEventStream(response) ? parseStream(response.body.toString('utf8')) : parseJson(json(response));
  },
};
