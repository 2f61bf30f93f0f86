/**
 * What the crawler and the passive checks read from an HTML page, by a tolerant tag scan rather
 * than a DOM: broken markup cannot stop it, it runs in time linear in the page, and it runs no
 * JavaScript (the page is analysed as served). Capped at MAX_REFERENCES references per page.
 */
export interface Reference {
  tag: 'a' | 'area' | 'link' | 'script' | 'iframe' | 'frame' | 'form' | 'img';
  /** The raw URL attribute (href, src, action), entities decoded. */
  url: string;
  attributes: Record<string, string>;
}

export interface ParsedHtml {
  references: Reference[];
  /** More references than the cap were on the page; the rest were not read. */
  capped: boolean;
  base?: string;
}

export const MAX_REFERENCES = 5000;

const TAG = /<(a|area|link|script|iframe|frame|form|img|base)\b([^>]{0,4000})>/gi;
const ATTRIBUTE = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const URL_ATTRIBUTE: Record<string, string> = {
  a: 'href',
  area: 'href',
  link: 'href',
  base: 'href',
  script: 'src',
  iframe: 'src',
  frame: 'src',
  img: 'src',
  form: 'action',
};

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  '#39': "'",
  '#x27': "'",
  '#47': '/',
  '#x2f': '/',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#?[a-z0-9]{1,8});/gi, (whole, name: string) => ENTITIES[name.toLowerCase()] ?? whole);
}

export function parseAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of text.matchAll(ATTRIBUTE)) {
    const name = match[1].toLowerCase();
    if (!(name in attributes)) attributes[name] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

export function parseHtml(text: string): ParsedHtml {
  const references: Reference[] = [];
  let base: string | undefined;
  let capped = false;
  // Comments hold markup that is not on the page.
  const visible = text.replace(/<!--[\s\S]*?-->/g, '');
  for (const match of visible.matchAll(TAG)) {
    const tag = match[1].toLowerCase() as Reference['tag'] | 'base';
    const attributes = parseAttributes(match[2]);
    const url = attributes[URL_ATTRIBUTE[tag]];
    if (tag === 'base') {
      base ??= url;
      continue;
    }
    if (url === undefined && tag !== 'form') continue;
    if (references.length >= MAX_REFERENCES) {
      capped = true;
      break;
    }
    references.push({ tag, url: (url ?? '').trim(), attributes });
  }
  return { references, capped, base };
}

export function isHtml(headers: Record<string, string>): boolean {
  return /^\s*(text\/html|application\/xhtml\+xml)/i.test(headers['content-type'] ?? '');
}
