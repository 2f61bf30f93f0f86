/**
 * A loopback model server speaking the real wire shapes: OpenAI chat completions (JSON and
 * server-sent events, tool calls), Anthropic messages (JSON and SSE, tool_use), an application
 * endpoint for http_template (POST /app/chat `{input: {text}}` → `{result: {answer}}`) and
 * GET /v1/models. Behind it a scripted assistant (assistant.ts). It logs what it received and
 * counts requests and tokens from its side; faults turn it into the hostile endpoints of §23.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reply, type Behaviour, type Mind, type Reply, type Turn } from './assistant.ts';

export type Fault = 'always_429' | 'always_500' | 'stream_forever' | 'huge' | 'invalid_json' | 'invalid_sse' | 'redirect' | 'hang';

export interface FakeModelOptions {
  behaviour: Behaviour;
  systemPrompt?: string;
  documents?: readonly string[];
  /** Completions need `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** GET /v1/models: answered to anyone (`open`, the default), only with the key (`auth`), or 404 (`absent`). */
  models?: 'open' | 'auth' | 'absent';
  /** The first `count` completions are answered 429 with `Retry-After: seconds`. */
  rateLimit?: { count: number; retryAfterSeconds: number };
  fault?: Fault;
  /** The server's notion of now (a test's virtual clock), stamped on each request. */
  now?: () => number;
  /** How long the "model" takes to answer a completion (the bench's model latency; tests leave it 0). */
  latencyMs?: number;
}

export interface Received {
  at: number;
  method: string;
  path: string;
  authorization?: string;
  body: Record<string, unknown> | undefined;
  status: number;
  outputTokens: number;
}

export interface FakeModelServer {
  origin: string;
  log: Received[];
  close(): Promise<void>;
}

const tokens = (text: string): number => Math.ceil(text.length / 4);

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** The reply cut to `maxTokens` (~4 characters a token), as a model's max_tokens cuts it. */
function capped(text: string, maxTokens: number): string {
  return text.slice(0, maxTokens * 4);
}

function openaiTurns(body: Record<string, unknown>, system: string): { turns: Turn[]; tools: string[] } {
  const turns: Turn[] = [{ role: 'system', text: system }];
  for (const message of (body.messages ?? []) as Record<string, unknown>[]) {
    const content = typeof message.content === 'string' ? message.content : '';
    turns.push({ role: message.role as Turn['role'], text: content });
  }
  const tools = ((body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
  return { turns, tools };
}

function anthropicTurns(body: Record<string, unknown>, system: string): { turns: Turn[]; tools: string[] } {
  const turns: Turn[] = [{ role: 'system', text: system }];
  for (const message of (body.messages ?? []) as { role: string; content: unknown }[]) {
    if (typeof message.content === 'string') {
      turns.push({ role: message.role as Turn['role'], text: message.content });
      continue;
    }
    for (const block of message.content as Record<string, unknown>[]) {
      if (block.type === 'text') turns.push({ role: message.role as Turn['role'], text: String(block.text) });
      if (block.type === 'tool_result') turns.push({ role: 'tool', text: String(block.content) });
      if (block.type === 'tool_use') turns.push({ role: 'assistant', text: '' });
    }
  }
  const tools = ((body.tools ?? []) as { name: string }[]).map((tool) => tool.name);
  return { turns, tools };
}

function sse(response: ServerResponse, events: readonly { event?: string; data: string }[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { event, data } of events) response.write(`${event ? `event: ${event}\n` : ''}data: ${data}\n\n`);
  response.end();
}

function openaiAnswer(response: ServerResponse, body: Record<string, unknown>, answer: Reply, inputTokens: number): number {
  const output = tokens(answer.text);
  const toolCalls = answer.toolCall ? [{ id: 'call_fake1', type: 'function', function: answer.toolCall }] : undefined;
  const usage = { prompt_tokens: inputTokens, completion_tokens: output, total_tokens: inputTokens + output };
  if (body.stream === true) {
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        model: 'fake',
        choices: [{ index: 0, delta, finish_reason: null }],
        ...extra,
      });
    const events = [{ data: chunk({ role: 'assistant', content: '' }) }];
    for (let i = 0; i < answer.text.length; i += 16) events.push({ data: chunk({ content: answer.text.slice(i, i + 16) }) });
    if (answer.toolCall) {
      events.push({
        data: chunk({
          tool_calls: [{ index: 0, id: 'call_fake1', type: 'function', function: { name: answer.toolCall.name, arguments: '' } }],
        }),
      });
      events.push({ data: chunk({ tool_calls: [{ index: 0, function: { arguments: answer.toolCall.arguments } }] }) });
    }
    events.push({ data: JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [], usage }) }, { data: '[DONE]' });
    sse(response, events);
  } else {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        model: typeof body.model === 'string' ? body.model : 'fake',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: answer.toolCall ? null : answer.text, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
            finish_reason: toolCalls ? 'tool_calls' : 'stop',
          },
        ],
        usage,
      }),
    );
  }
  return output;
}

function anthropicAnswer(response: ServerResponse, body: Record<string, unknown>, answer: Reply, inputTokens: number): number {
  const output = tokens(answer.text);
  const content: Record<string, unknown>[] = [];
  if (answer.text) content.push({ type: 'text', text: answer.text });
  if (answer.toolCall)
    content.push({ type: 'tool_use', id: 'toolu_fake1', name: answer.toolCall.name, input: JSON.parse(answer.toolCall.arguments) });
  if (body.stream === true) {
    const events: { event: string; data: string }[] = [
      {
        event: 'message_start',
        data: JSON.stringify({
          type: 'message_start',
          message: {
            id: 'msg_fake',
            type: 'message',
            role: 'assistant',
            content: [],
            usage: { input_tokens: inputTokens, output_tokens: 0 },
          },
        }),
      },
    ];
    content.forEach((block, index) => {
      if (block.type === 'text') {
        events.push({
          event: 'content_block_start',
          data: JSON.stringify({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
        });
        for (let i = 0; i < answer.text.length; i += 16) {
          events.push({
            event: 'content_block_delta',
            data: JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: answer.text.slice(i, i + 16) } }),
          });
        }
      } else {
        events.push({
          event: 'content_block_start',
          data: JSON.stringify({
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
          }),
        });
        events.push({
          event: 'content_block_delta',
          data: JSON.stringify({
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
          }),
        });
      }
      events.push({ event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index }) });
    });
    events.push({
      event: 'message_delta',
      data: JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: output } }),
    });
    events.push({ event: 'message_stop', data: JSON.stringify({ type: 'message_stop' }) });
    sse(response, events);
  } else {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: typeof body.model === 'string' ? body.model : 'fake',
        content,
        stop_reason: 'end_turn',
        usage: { input_tokens: inputTokens, output_tokens: output },
      }),
    );
  }
  return output;
}

export async function startFakeModel(options: FakeModelOptions): Promise<FakeModelServer> {
  const log: Received[] = [];
  const mind: Mind = {
    behaviour: options.behaviour,
    systemPrompt: options.systemPrompt ?? 'You are a helpful assistant.',
    documents: options.documents ?? [],
  };
  const now = options.now ?? Date.now;
  let completions = 0;
  const hanging = new Set<ServerResponse>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const at = now();
    const text = await readBody(request);
    let body: Record<string, unknown> | undefined;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const entry: Received = {
      at,
      method: request.method ?? '',
      path: request.url ?? '',
      authorization: request.headers.authorization,
      body,
      status: 200,
      outputTokens: 0,
    };
    log.push(entry);
    const status = (code: number, headers: Record<string, string> = {}, payload = '{"error":{"message":"fake"}}'): void => {
      entry.status = code;
      response.writeHead(code, { 'content-type': 'application/json', ...headers });
      response.end(payload);
    };
    const authorised = options.apiKey === undefined || request.headers.authorization === `Bearer ${options.apiKey}`;
    if (request.method === 'GET' && request.url === '/v1/models') {
      if (options.models === 'absent') return status(404);
      if (options.models === 'auth' && !authorised) return status(401);
      return status(
        200,
        {},
        JSON.stringify({
          object: 'list',
          data: [
            { id: 'fake-model-1', object: 'model' },
            { id: 'fake-model-2', object: 'model' },
          ],
        }),
      );
    }
    const kind =
      request.url === '/v1/chat/completions'
        ? 'openai'
        : request.url === '/v1/messages'
          ? 'anthropic'
          : request.url === '/app/chat'
            ? 'app'
            : undefined;
    if (request.method !== 'POST' || !kind) return status(404);
    if (!authorised) return status(401);
    completions += 1;
    if (options.rateLimit && completions <= options.rateLimit.count)
      return status(429, { 'retry-after': String(options.rateLimit.retryAfterSeconds) });
    switch (options.fault) {
      case 'always_429':
        return status(429, { 'retry-after': '2' });
      case 'always_500':
        return status(500);
      case 'redirect':
        return status(307, { location: 'http://169.254.169.254/latest/meta-data/' });
      case 'invalid_json':
        entry.status = 200;
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end('{"choices": [ {"message": ');
      case 'invalid_sse':
        entry.status = 200;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        return void response.end('data: {"choices": [\n\nnot an sse line\n\n');
      case 'huge':
        entry.status = 200;
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'x'.repeat(10 * 1024 * 1024) } }] }));
      case 'stream_forever': {
        entry.status = 200;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        hanging.add(response);
        const timer = setInterval(
          () => response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'and on ' } }] })}\n\n`),
          20,
        );
        response.on('close', () => {
          clearInterval(timer);
          hanging.delete(response);
        });
        return;
      }
      case 'hang':
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      default:
        break;
    }
    if (!body) return status(400, {}, '{"error":{"message":"the body is not JSON"}}');
    if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    const maxTokens = Number(body.max_tokens ?? 1024);
    const system = mind.systemPrompt;
    if (kind === 'app') {
      const input = (body.input as { text?: unknown } | undefined)?.text;
      if (typeof input !== 'string') return status(400);
      const answer = reply(
        mind,
        [
          { role: 'system', text: system },
          { role: 'user', text: input },
        ],
        [],
      );
      entry.outputTokens = tokens(answer.text);
      response.writeHead(200, { 'content-type': 'application/json' });
      return void response.end(JSON.stringify({ result: { answer: answer.text }, session: body.session ?? null }));
    }
    const { turns, tools } = kind === 'openai' ? openaiTurns(body, system) : anthropicTurns(body, system);
    const raw = reply(mind, turns, tools);
    const answer = { ...raw, text: capped(raw.text, maxTokens) };
    const inputTokens = tokens(turns.map((turn) => turn.text).join('\n'));
    entry.outputTokens =
      kind === 'openai' ? openaiAnswer(response, body, answer, inputTokens) : anthropicAnswer(response, body, answer, inputTokens);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    log,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
