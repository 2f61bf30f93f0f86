/** Anthropic messages (POST /v1/messages): JSON or server-sent events, tool_use blocks. */
import type { ToolCall } from '../conversation.ts';
import type { Answer } from '../detectors.ts';
import { asRecord, BadAnswer, isEventStream, json, parseJsonData, sseEvents, str, type Api } from './api.ts';

const VERSION = '2023-06-01';

function parseJson(body: unknown): Answer {
  const record = asRecord(body);
  if (record?.type === 'error') throw new BadAnswer(`the answer is an error: ${JSON.stringify(record.error).slice(0, 200)}`);
  if (!Array.isArray(record?.content)) throw new BadAnswer('the answer has no content array');
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const raw of record.content) {
    const block = asRecord(raw);
    if (block?.type === 'text' && typeof block.text === 'string') text += block.text;
    if (block?.type === 'tool_use' && typeof block.name === 'string')
      toolCalls.push({ id: str(block.id), name: block.name, arguments: JSON.stringify(block.input ?? {}) });
  }
  const usage = asRecord(record.usage);
  return {
    text,
    toolCalls,
    usage: usage ? { inputTokens: Number(usage.input_tokens ?? 0), outputTokens: Number(usage.output_tokens ?? 0) } : undefined,
  };
}

function parseStream(text: string): Answer {
  const blocks = new Map<number, { text: string; call?: ToolCall }>();
  let inputTokens = 0;
  let outputTokens = 0;
  let stopped = false;
  for (const { event, data } of sseEvents(text)) {
    const payload = parseJsonData(data);
    const type = str(payload.type) || event;
    if (type === 'error') throw new BadAnswer(`the stream carries an error: ${JSON.stringify(payload.error).slice(0, 200)}`);
    if (type === 'message_start') inputTokens = Number(asRecord(asRecord(payload.message)?.usage)?.input_tokens ?? 0);
    if (type === 'message_delta') outputTokens = Number(asRecord(payload.usage)?.output_tokens ?? outputTokens);
    if (type === 'message_stop') stopped = true;
    const index = Number(payload.index ?? 0);
    if (type === 'content_block_start') {
      const block = asRecord(payload.content_block);
      blocks.set(
        index,
        block?.type === 'tool_use'
          ? { text: '', call: { id: str(block.id), name: str(block.name), arguments: '' } }
          : { text: str(block?.text) },
      );
    }
    if (type === 'content_block_delta') {
      const delta = asRecord(payload.delta);
      const block = blocks.get(index) ?? { text: '' };
      if (delta?.type === 'text_delta') block.text += str(delta.text);
      if (delta?.type === 'input_json_delta' && block.call) block.call.arguments += str(delta.partial_json);
      blocks.set(index, block);
    }
  }
  if (!stopped) throw new BadAnswer('the event stream ended without message_stop');
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
  return {
    text: ordered.map((block) => block.text).join(''),
    toolCalls: ordered.flatMap((block) => (block.call ? [{ ...block.call, arguments: block.call.arguments || '{}' }] : [])),
    usage: { inputTokens, outputTokens },
  };
}

export const anthropicMessages: Api = {
  toolCalls: true,
  modelsHeaders: { accept: 'application/json', 'anthropic-version': VERSION },
  request(conversation, settings, target) {
    const messages = conversation.messages.map((message) => {
      if (message.role === 'user') return { role: 'user', content: message.text };
      if (message.role === 'tool')
        return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.callId, content: message.text }] };
      return message.toolCall
        ? {
            role: 'assistant',
            content: [
              ...(message.text ? [{ type: 'text', text: message.text }] : []),
              {
                type: 'tool_use',
                id: message.toolCall.id,
                name: message.toolCall.name,
                input: JSON.parse(message.toolCall.arguments) as unknown,
              },
            ],
          }
        : { role: 'assistant', content: message.text };
    });
    const body: Record<string, unknown> = {
      ...(settings.model ? { model: settings.model } : {}),
      max_tokens: settings.maxTokens,
      messages,
    };
    if (conversation.tools.length > 0) {
      body.tools = conversation.tools.map((name) => ({
        name,
        description: `The application's ${name} tool.`,
        input_schema: { type: 'object', properties: {} },
      }));
    }
    if (settings.stream) body.stream = true;
    return {
      method: 'POST',
      url: target,
      headers: {
        'content-type': 'application/json',
        accept: settings.stream ? 'text/event-stream' : 'application/json',
        'anthropic-version': VERSION,
      },
      body: JSON.stringify(body),
    };
  },
  parse(response) {
    return isEventStream(response) ? parseStream(response.body.toString('utf8')) : parseJson(json(response));
  },
};
