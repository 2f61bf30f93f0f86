/**
 * Data of the lookalike permutation engine: keyboard neighbours (QWERTY, QWERTZ, AZERTY), visual
 * homoglyphs and Latin→Cyrillic look-alikes. The tables reproduce dnstwist's (20221213) so that every
 * name dnstwist generates for a shared family is also ours (docs/mailscan-discover-leak.md).
 */
export const KEYBOARDS: readonly Readonly<Record<string, string>>[] = [
  {
    1: '2q', 2: '3wq1', 3: '4ew2', 4: '5re3', 5: '6tr4', 6: '7yt5', 7: '8uy6', 8: '9iu7', 9: '0oi8', 0: 'po9',
    q: '12wa', w: '3esaq2', e: '4rdsw3', r: '5tfde4', t: '6ygfr5', y: '7uhgt6', u: '8ijhy7', i: '9okju8', o: '0plki9', p: 'lo0',
    a: 'qwsz', s: 'edxzaw', d: 'rfcxse', f: 'tgvcdr', g: 'yhbvft', h: 'ujnbgy', j: 'ikmnhu', k: 'olmji', l: 'kop',
    z: 'asx', x: 'zsdc', c: 'xdfv', v: 'cfgb', b: 'vghn', n: 'bhjm', m: 'njk',
  },
  {
    1: '2q', 2: '3wq1', 3: '4ew2', 4: '5re3', 5: '6tr4', 6: '7zt5', 7: '8uz6', 8: '9iu7', 9: '0oi8', 0: 'po9',
    q: '12wa', w: '3esaq2', e: '4rdsw3', r: '5tfde4', t: '6zgfr5', z: '7uhgt6', u: '8ijhz7', i: '9okju8', o: '0plki9', p: 'lo0',
    a: 'qwsy', s: 'edxyaw', d: 'rfcxse', f: 'tgvcdr', g: 'zhbvft', h: 'ujnbgz', j: 'ikmnhu', k: 'olmji', l: 'kop',
    y: 'asx', x: 'ysdc', c: 'xdfv', v: 'cfgb', b: 'vghn', n: 'bhjm', m: 'njk',
  },
  {
    1: '2a', 2: '3za1', 3: '4ez2', 4: '5re3', 5: '6tr4', 6: '7yt5', 7: '8uy6', 8: '9iu7', 9: '0oi8', 0: 'po9',
    a: '2zq1', z: '3esqa2', e: '4rdsz3', r: '5tfde4', t: '6ygfr5', y: '7uhgt6', u: '8ijhy7', i: '9okju8', o: '0plki9', p: 'lo0m',
    q: 'zswa', s: 'edxwqz', d: 'rfcxse', f: 'tgvcdr', g: 'yhbvft', h: 'ujnbgy', j: 'iknhu', k: 'olji', l: 'kopm', m: 'lp',
    w: 'sxq', x: 'wsdc', c: 'xdfv', v: 'cfgb', b: 'vghn', n: 'bhj',
  },
];

export const HOMOGLYPHS: Readonly<Record<string, readonly string[]>> = {
  0: ['o'], 1: ['l', 'i'], 2: ['ƻ'], 3: ['8'], 5: ['ƽ'], 6: ['9'], 8: ['3'], 9: ['6'],
  a: ['à', 'á', 'â', 'ã', 'ä', 'å', 'ɑ', 'ạ', 'ǎ', 'ă', 'ȧ', 'ą', 'ə'],
  b: ['d', 'lb', 'ʙ', 'ɓ', 'ḃ', 'ḅ', 'ḇ', 'ƅ'],
  c: ['e', 'ƈ', 'ċ', 'ć', 'ç', 'č', 'ĉ', 'ᴄ'],
  d: ['b', 'cl', 'dl', 'ɗ', 'đ', 'ď', 'ɖ', 'ḑ', 'ḋ', 'ḍ', 'ḏ', 'ḓ'],
  e: ['c', 'é', 'è', 'ê', 'ë', 'ē', 'ĕ', 'ě', 'ė', 'ẹ', 'ę', 'ȩ', 'ɇ', 'ḛ'],
  f: ['ƒ', 'ḟ'],
  g: ['q', 'ɢ', 'ɡ', 'ġ', 'ğ', 'ǵ', 'ģ', 'ĝ', 'ǧ', 'ǥ'],
  h: ['lh', 'ĥ', 'ȟ', 'ħ', 'ɦ', 'ḧ', 'ḩ', 'ⱨ', 'ḣ', 'ḥ', 'ḫ', 'ẖ'],
  i: ['1', 'l', 'í', 'ì', 'ï', 'ı', 'ɩ', 'ǐ', 'ĭ', 'ỉ', 'ị', 'ɨ', 'ȋ', 'ī', 'ɪ'],
  j: ['ʝ', 'ǰ', 'ɉ', 'ĵ'],
  k: ['lk', 'ik', 'lc', 'ḳ', 'ḵ', 'ⱪ', 'ķ', 'ᴋ'],
  l: ['1', 'i', 'ɫ', 'ł'],
  m: ['n', 'nn', 'rn', 'rr', 'ṁ', 'ṃ', 'ᴍ', 'ɱ', 'ḿ'],
  n: ['m', 'r', 'ń', 'ṅ', 'ṇ', 'ṉ', 'ñ', 'ņ', 'ǹ', 'ň', 'ꞑ'],
  o: ['0', 'ȯ', 'ọ', 'ỏ', 'ơ', 'ó', 'ö', 'ᴏ'],
  p: ['ƿ', 'ƥ', 'ṕ', 'ṗ'],
  q: ['g', 'ʠ'],
  r: ['ʀ', 'ɼ', 'ɽ', 'ŕ', 'ŗ', 'ř', 'ɍ', 'ɾ', 'ȓ', 'ȑ', 'ṙ', 'ṛ', 'ṟ'],
  s: ['ʂ', 'ś', 'ṣ', 'ṡ', 'ș', 'ŝ', 'š', 'ꜱ'],
  t: ['ţ', 'ŧ', 'ṫ', 'ṭ', 'ț', 'ƫ'],
  u: ['ᴜ', 'ǔ', 'ŭ', 'ü', 'ʉ', 'ù', 'ú', 'û', 'ũ', 'ū', 'ų', 'ư', 'ů', 'ű', 'ȕ', 'ȗ', 'ụ'],
  v: ['ṿ', 'ⱱ', 'ᶌ', 'ṽ', 'ⱴ', 'ᴠ'],
  w: ['vv', 'ŵ', 'ẁ', 'ẃ', 'ẅ', 'ⱳ', 'ẇ', 'ẉ', 'ẘ', 'ᴡ'],
  x: ['ẋ', 'ẍ'],
  y: ['ʏ', 'ý', 'ÿ', 'ŷ', 'ƴ', 'ȳ', 'ɏ', 'ỿ', 'ẏ', 'ỵ'],
  z: ['ʐ', 'ż', 'ź', 'ᴢ', 'ƶ', 'ẓ', 'ẕ', 'ⱬ'],
};

export const LATIN_TO_CYRILLIC: Readonly<Record<string, string>> = {
  a: 'а', b: 'ь', c: 'с', d: 'ԁ', e: 'е', g: 'ԍ', h: 'һ', i: 'і', j: 'ј', k: 'к', l: 'ӏ', m: 'м', o: 'о', p: 'р',
  q: 'ԛ', s: 'ѕ', t: 'т', v: 'ѵ', w: 'ԝ', x: 'х', y: 'у',
};

/** Words phishing campaigns attach to a brand (login-, -secure, ...): the `dictionary` family. */
export const DEFAULT_DICTIONARY: readonly string[] = [
  'auth', 'access', 'account', 'admin', 'agree', 'blue', 'business', 'cdn', 'choose', 'claim', 'cl', 'click', 'confirm',
  'confirmation', 'connect', 'download', 'enroll', 'find', 'group', 'http', 'https', 'https-www', 'install', 'login',
  'mobile', 'mail', 'my', 'online', 'pay', 'payment', 'payments', 'portal', 'recovery', 'register', 'ssl', 'safe', 'secure',
  'security', 'service', 'services', 'signin', 'signup', 'support', 'summary', 'update', 'user', 'verify', 'verification',
  'view', 'ww', 'www', 'web', 'sso', 'helpdesk', 'invoice', 'hr', 'office', 'outlook', 'webmail', 'vpn',
];

/** The TLD-swap family's TLDs: the most used TLDs plus those most abused for phishing. */
export const DEFAULT_SWAP_TLDS: readonly string[] = [
  'com', 'net', 'org', 'jp', 'de', 'uk', 'fr', 'br', 'it', 'ru', 'es', 'me', 'gov', 'pl', 'ca', 'au', 'cn', 'co', 'in', 'nl',
  'edu', 'info', 'eu', 'ch', 'id', 'at', 'kr', 'cz', 'mx', 'be', 'tv', 'se', 'tr', 'tw', 'al', 'ua', 'ir', 'vn', 'cl', 'sk',
  'ly', 'cc', 'to', 'no', 'fi', 'us', 'pt', 'dk', 'ar', 'hu', 'tk', 'gr', 'il', 'news', 'ro', 'my', 'biz', 'ie', 'za', 'nz',
  'sg', 'ee', 'th', 'io', 'xyz', 'pe', 'bg', 'hk', 'rs', 'lt', 'link', 'ph', 'club', 'si', 'site', 'mobi', 'by', 'cat',
  'wiki', 'la', 'ga', 'xxx', 'cf', 'hr', 'ng', 'jobs', 'online', 'kz', 'ug', 'gq', 'ae', 'is', 'lv', 'pro', 'fm', 'tips',
  'ms', 'sa', 'app', 'top', 'shop', 'store', 'live', 'icu', 'buzz', 'cyou', 'rest', 'support', 'work', 'click', 'cam',
  'bond', 'sbs', 'cfd', 'lol', 'quest', 'zip', 'mov', 'ml', 'email', 'co.uk', 'com.br', 'com.au',
];
