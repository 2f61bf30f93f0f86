import type { Settings } from '../scope.ts';
import type { Api } from './api.ts';
import { anthropicMessages } from './anthropic-messages.ts';
import { httpTemplate } from './http-template.ts';
import { openaiChat } from './openai-chat.ts';

export { BadAnswer, type Api } from './api.ts';

export const APIS: Readonly<Record<Settings['api'], Api>> = {
  openai_chat: openaiChat,
  anthropic_messages: anthropicMessages,
  http_template: httpTemplate,
};
