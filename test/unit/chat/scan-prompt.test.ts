import { describe, expect, it } from 'vitest';
import { parseScanPrompt, PROMPT_EXAMPLES, type PromptRequest } from '../../../shared/chat/scan-prompt.ts';
import { MANIFESTS } from '../../../layers/manifests.ts';
import { engineViews } from '../../../shared/domain/engine-views.ts';
import { checkScope } from '../../../shared/domain/scope.ts';
import type { ScanType } from '../../../shared/domain/scan-types.ts';
import { optionsFromWords, scopeFieldsOf } from '../../../web/src/scope-schema.ts';

const schedules = [
  { id: 'sch_01MAIL', name: 'Mail posture', enabled: true },
  { id: 'sch_01WEEK', name: 'Weekly TLS', enabled: false },
  { id: 'sch_01WEB1', name: 'Web app prod', enabled: true },
  { id: 'sch_01WEB2', name: 'Web app staging', enabled: true },
];

const scan = (body: Record<string, unknown>): PromptRequest => ({ method: 'POST', path: '/api/scans/', body });
const schedule = (body: Record<string, unknown>): PromptRequest => ({ method: 'POST', path: '/api/scans/schedules/', body });
const mail = (target: string, extra: Record<string, unknown> = {}) => ({
  name: `Email Security of ${target}`,
  scan_type: 'email_security',
  target,
  ...extra,
});
const custom = (cron: string, timezone = 'UTC') => ({ cadence: 'custom', cron_expression: cron, timezone });

// Each sentence and the exact request it must produce.
const understood: Array<[string, PromptRequest]> = [
  // manual scans
  ['scan mail security of example.com', scan({ scan_type: 'email_security', target: 'example.com' })],
  ['Check the email security of Example.COM.', scan({ scan_type: 'email_security', target: 'example.com' })],
  ['check dmarc for example.org', scan({ scan_type: 'email_security', target: 'example.org' })],
  ['scan example.com for mail problems', scan({ scan_type: 'email_security', target: 'example.com' })],
  ['run an email scan of example.com now', scan({ scan_type: 'email_security', target: 'example.com' })],
  [
    'check mail of example.com without reputation',
    scan({ scan_type: 'email_security', target: 'example.com', scope: { reputation: false } }),
  ],
  [
    'scan mail of example.com with discovery and leak checks',
    scan({ scan_type: 'email_security', target: 'example.com', scope: { discover: true, leak: true } }),
  ],
  ['check e-mail of bücher.de', scan({ scan_type: 'email_security', target: 'xn--bcher-kva.de' })],
  ['scan ssl of www.example.com:443', scan({ scan_type: 'ssl', target: 'www.example.com:443' })],
  // An IP with a port keeps its port (it was dropped: the request named port 443 instead).
  ['scan ssl of 93.184.215.14:8443', scan({ scan_type: 'ssl', target: '93.184.215.14:8443' })],
  ['check the TLS certificate of mail.example.com', scan({ scan_type: 'ssl', target: 'mail.example.com' })],
  ['run a DAST scan against https://app.example.com/login', scan({ scan_type: 'dast', target: 'https://app.example.com/login' })],
  ['scan the web app https://shop.example.com', scan({ scan_type: 'dast', target: 'https://shop.example.com/' })],
  ['run a web scan of https://shop.example.com', scan({ scan_type: 'dast', target: 'https://shop.example.com/' })],
  ['make an SBOM of https://github.com/acme/app', scan({ scan_type: 'sbom', target: 'https://github.com/acme/app' })],
  [
    'red team https://chat.example.com/v1/chat/completions',
    scan({ scan_type: 'ai_red_team', target: 'https://chat.example.com/v1/chat/completions' }),
  ],
  ['pentest 93.184.215.0/24', scan({ scan_type: 'vapt', target: '93.184.215.0/24' })],
  ['vapt scan of 93.184.215.10', scan({ scan_type: 'vapt', target: '93.184.215.10' })],
  ['scan secrets in https://github.com/acme/api', scan({ scan_type: 'secret_scan', target: 'https://github.com/acme/api' })],
  ['secret scan git@github.com:acme/api.git', scan({ scan_type: 'secret_scan', target: 'git@github.com:acme/api.git' })],
  ['vulnerability scan of 2606:4700::1111', scan({ scan_type: 'vm', target: '2606:4700::1111' })],
  ['vm scan db.internal.example', scan({ scan_type: 'vm', target: 'db.internal.example' })],
  ['sbom of https://github.com/acme/web', scan({ scan_type: 'sbom', target: 'https://github.com/acme/web' })],
  ['check m365 for contoso.com', scan({ scan_type: 'm365', target: 'contoso.com' })],
  ['ai red team https://llm.example.com/v1/chat', scan({ scan_type: 'ai_red_team', target: 'https://llm.example.com/v1/chat' })],
  ['medical device scan 93.184.215.7', scan({ scan_type: 'medical', target: '93.184.215.7' })],
  ['scan the PACS at pacs.example.org:11112', scan({ scan_type: 'medical', target: 'pacs.example.org:11112' })],
  ['check the FHIR server https://fhir.example.org/fhir', scan({ scan_type: 'medical', target: 'https://fhir.example.org/fhir' })],
  ['vdi scan of vdi.example.com', scan({ scan_type: 'vdi', target: 'vdi.example.com' })],
  ['vdi scan of rdp.example.com:3389', scan({ scan_type: 'vdi', target: 'rdp.example.com:3389' })],
  // preset cadences (UTC, DESIGN §5)
  ['schedule a daily mail scan of example.com', schedule(mail('example.com', { cadence: 'daily' }))],
  ['check mail security of example.com every day', schedule(mail('example.com', { cadence: 'daily' }))],
  ['scan email of example.com weekly', schedule(mail('example.com', { cadence: 'weekly' }))],
  ['monthly mail check of example.com', schedule(mail('example.com', { cadence: 'monthly' }))],
  [
    'schedule an SSL scan of www.example.com:443 daily',
    schedule({ name: 'SSL/TLS of www.example.com:443', scan_type: 'ssl', target: 'www.example.com:443', cadence: 'daily' }),
  ],
  // custom cadences
  [
    'check mail security of example.com every weekday at 9:30 Paris time',
    schedule(mail('example.com', custom('30 9 * * 1-5', 'Europe/Paris'))),
  ],
  ['check mail of example.com weekdays at 09:30 in Paris', schedule(mail('example.com', custom('30 9 * * 1-5', 'Europe/Paris')))],
  ['scan email of example.com every Monday', schedule(mail('example.com', custom('0 0 * * 1')))],
  ['scan email of example.com every monday at 8am', schedule(mail('example.com', custom('0 8 * * 1')))],
  ['scan email of example.com on mondays and thursdays at 6 pm', schedule(mail('example.com', custom('0 18 * * 1,4')))],
  ['mail scan example.com monday to friday at 7:15', schedule(mail('example.com', custom('15 7 * * 1-5')))],
  ['mail scan example.com mon-wed at 7:15', schedule(mail('example.com', custom('15 7 * * 1-3')))],
  ['mail scan example.com friday through monday at noon', schedule(mail('example.com', custom('0 12 * * 0,1,5,6')))],
  ['mail scan example.com on weekends at midnight', schedule(mail('example.com', custom('0 0 * * 0,6')))],
  ['scan email of example.com every 6 hours', schedule(mail('example.com', custom('0 */6 * * *')))],
  ['scan email of example.com every hour', schedule(mail('example.com', custom('0 * * * *')))],
  ['scan email of example.com hourly', schedule(mail('example.com', custom('0 * * * *')))],
  ['scan email of example.com every 30 minutes', schedule(mail('example.com', custom('*/30 * * * *')))],
  ['scan email of example.com every 2 days at 5:00', schedule(mail('example.com', custom('0 5 */2 * *')))],
  ['check mail of example.com on the 1st at 04:00', schedule(mail('example.com', custom('0 4 1 * *')))],
  ['check mail of example.com on the 15th at 11:45 pm UTC', schedule(mail('example.com', custom('45 23 15 * *')))],
  ['check mail of example.com monthly at 6:00 Tokyo time', schedule(mail('example.com', custom('0 6 1 * *', 'Asia/Tokyo')))],
  ['check mail of example.com daily at 9:30 Europe/Paris', schedule(mail('example.com', custom('30 9 * * *', 'Europe/Paris')))],
  [
    'check mail of example.com every day at 14:05 America/New_York',
    schedule(mail('example.com', custom('5 14 * * *', 'America/New_York'))),
  ],
  ['check mail of example.com every day at 7 New York time', schedule(mail('example.com', custom('0 7 * * *', 'America/New_York')))],
  ['check mail of example.com weekly at 3:00 in London', schedule(mail('example.com', custom('0 3 * * 1', 'Europe/London')))],
  ['check mail of example.com every weekday at 8:00 (Berlin)', schedule(mail('example.com', custom('0 8 * * 1-5', 'Europe/Berlin')))],
  ['schedule mail check of example.com with cron 30 9 * * 1-5', schedule(mail('example.com', custom('30 9 * * 1-5')))],
  [
    'schedule mail check of example.com "0 */6 * * *" in Europe/Paris',
    schedule(mail('example.com', custom('0 */6 * * *', 'Europe/Paris'))),
  ],
  ['schedule mail check of example.com @daily', schedule(mail('example.com', custom('@daily')))],
  [
    'schedule a DAST scan of https://app.example.com with cron 30 2 * * 1',
    schedule({ name: 'DAST of https://app.example.com/', scan_type: 'dast', target: 'https://app.example.com/', ...custom('30 2 * * 1') }),
  ],
  ['check mail of example.com daily without reputation', schedule(mail('example.com', { cadence: 'daily', scope: { reputation: false } }))],
  [
    'scan ssl of api.example.com every day at 1:30 am',
    schedule({ name: 'SSL/TLS of api.example.com', scan_type: 'ssl', target: 'api.example.com', ...custom('30 1 * * *') }),
  ],
  // nhi: the target is a credential alias of the vault (DESIGN §20), named after credential/of/for
  ['nhi scan of ci-deploy-key', scan({ scan_type: 'nhi', target: 'ci-deploy-key' })],
  [
    'review the non-human identity credential release-bot every monday at 9',
    schedule({ name: 'NHI of release-bot', scan_type: 'nhi', target: 'release-bot', ...custom('0 9 * * 1') }),
  ],
  // schedule actions
  ['run Mail posture now', { method: 'POST', path: '/api/scans/schedules/sch_01MAIL/run/' }],
  ['run the "Mail posture" schedule now', { method: 'POST', path: '/api/scans/schedules/sch_01MAIL/run/' }],
  ['run now: mail posture', { method: 'POST', path: '/api/scans/schedules/sch_01MAIL/run/' }],
  ['pause Mail posture', { method: 'POST', path: '/api/scans/schedules/sch_01MAIL/toggle/' }],
  ['disable the mail posture schedule', { method: 'POST', path: '/api/scans/schedules/sch_01MAIL/toggle/' }],
  ['resume Weekly TLS', { method: 'POST', path: '/api/scans/schedules/sch_01WEEK/toggle/' }],
  ['enable weekly tls', { method: 'POST', path: '/api/scans/schedules/sch_01WEEK/toggle/' }],
  ['run web app prod now', { method: 'POST', path: '/api/scans/schedules/sch_01WEB1/run/' }],
];

// Each sentence it must refuse, and a part of what it says.
const refused: Array<[string, RegExp]> = [
  ['', /Type what to scan/],
  ['hello', /Which target/],
  ['scan my domain', /Which target/],
  ['check mail security every day', /Which target/],
  ['scan example.com', /Which kind of scan of example\.com/],
  ['scan mail of example.com and example.org', /one target at a time/],
  ['check mail of not_a_domain', /Which target/],
  ['check mail of 192.0.2.1', /is not a target for Email Security/],
  ['scan secrets in https://example.com', /is not a target for Secret Scan/],
  ['schedule a mail scan of example.com', /How often/],
  ['scan email of example.com every 2 minutes', /fires more often than every 5 minutes/],
  ['scan email of example.com every 30 hours', /from 1 to 23/],
  ['check mail of example.com on the 31st at 25:00', /not a time of day/],
  ['check mail of example.com every day at 13 pm', /not a time of day/],
  ['check mail of example.com in Paris', /A time zone but no cadence/],
  ['check mail of example.com daily at 9:00 Europe/Atlantis', /not a time zone I know/],
  ['schedule mail of example.com with cron 0 0 30 2 *', /never fires/],
  ['schedule mail of example.com with cron 0 0 */2 * 1', /cannot be scheduled: day-of-month and day-of-week/],
  ['check mail of example.com on the 1st on mondays', /not both/],
  ['nhi ci-key', /Which target/],
  ['nhi scan of ci-key for deploy-key', /one credential at a time/],
  ['run Backups now', /no schedule named "backups"/],
  ['run web app now', /names 2 schedules/],
  ['pause weekly tls', /already paused/],
  ['resume mail posture', /already running/],
];

describe('Ask to scan: sentence → request', () => {
  it.each(understood)('%s', (sentence, request) => {
    const result = parseScanPrompt(sentence, { schedules });

    expect(result.kind).toBe('request');
    if (result.kind === 'request') expect(result.request).toEqual(request);
  });

  it.each(refused)('refuses: %s', (sentence, message) => {
    const result = parseScanPrompt(sentence, { schedules });

    expect(result.kind).toBe('not_understood');
    if (result.kind === 'not_understood') {
      expect(result.message).toMatch(message);
      expect(result.examples).toEqual(PROMPT_EXAMPLES);
    }
  });

  it('covers at least 60 sentences', () => {
    expect(understood.length + refused.length).toBeGreaterThanOrEqual(60);
  });

  it('understands every example it offers', () => {
    for (const example of PROMPT_EXAMPLES) expect(parseScanPrompt(example, { schedules }).kind, example).toBe('request');
  });

  it('summarises the request in words', () => {
    const result = parseScanPrompt('check mail security of example.com every weekday at 9:30 Paris time');

    expect(result).toMatchObject({ summary: 'Create a schedule: Email Security of example.com, cron 30 9 * * 1-5 in Europe/Paris.' });
  });

  it('gives the same answer every time', () => {
    const sentence = 'scan email of example.com on mondays and thursdays at 6 pm';
    expect(parseScanPrompt(sentence)).toEqual(parseScanPrompt(sentence));
  });
});

describe('the deployment target policy', () => {
  const sentence = 'check vulnerabilities of 127.0.0.1 now';

  it('refuses a loopback or private target by default, as the API does', () => {
    expect(parseScanPrompt(sentence)).toMatchObject({ kind: 'not_understood' });
    expect(parseScanPrompt('check vulnerabilities of 10.0.0.0/28 now')).toMatchObject({ kind: 'not_understood' });
  });

  it('accepts what the deployment admits (ALLOW_LOOPBACK_TARGETS, ALLOW_PRIVATE_TARGETS)', () => {
    expect(parseScanPrompt(sentence, { policy: { allowPrivate: false, allowLoopback: true } })).toMatchObject({
      kind: 'request',
      request: scan({ scan_type: 'vm', target: '127.0.0.1' }),
    });
    expect(parseScanPrompt('check vulnerabilities of 10.0.0.0/28 now', { policy: { allowPrivate: true } })).toMatchObject({
      kind: 'request',
      request: scan({ scan_type: 'vm', target: '10.0.0.0/28' }),
    });
    // Loopback stays refused where only private networks are allowed.
    expect(parseScanPrompt(sentence, { policy: { allowPrivate: true } })).toMatchObject({ kind: 'not_understood' });
  });
});

describe('options in words, for every engine', () => {
  // What the UI passes (web/src/pages/home.tsx): each type's options read by its scope schema.
  const views = engineViews();
  const optionsIn = (scanType: string, words: string) =>
    optionsFromWords(scopeFieldsOf(views[scanType].scope_schema, Object.keys(views[scanType].artifact_fields)), words);
  const context = { optionsIn, policy: { allowPrivate: true } };
  // One sentence per scan type with its most used options, and the scope the API then receives.
  const PHRASES: ReadonlyArray<[sentence: string, scanType: string, target: string, scope: Record<string, unknown>]> = [
    ['scan ports 22,6390 on 10.0.0.5', 'vapt', '10.0.0.5', { ports: '22,6390' }],
    ['vm scan of db.example.com ports top1000 rate 50', 'vm', 'db.example.com', { ports: 'top1000', rate: 50 }],
    ['vapt of 10.0.0.0/28 connect timeout 800ms', 'vapt', '10.0.0.0/28', { connect_timeout_ms: 800 }],
    [
      'secret scan of https://git.example.com/repo.git branch dev without history',
      'secret_scan',
      'https://git.example.com/repo.git',
      { branch: 'dev', history: false },
    ],
    [
      'scan secrets of https://git.example.com/org/app max commits 500 credential gitlab-ci',
      'secret_scan',
      'https://git.example.com/org/app',
      { max_commits: 500, credential: 'gitlab-ci' },
    ],
    ['tls scan of mail.example.com:25 starttls smtp', 'ssl', 'mail.example.com:25', { starttls: 'smtp' }],
    ['ssl scan of 10.0.0.9:443 sni www.example.com without http', 'ssl', '10.0.0.9:443', { sni: 'www.example.com', http: false }],
    ['scan mail security of example.com with discover and leak', 'email_security', 'example.com', { discover: true, leak: true }],
    [
      'scan mail of example.com without reputation dkim selectors s1,google',
      'email_security',
      'example.com',
      { reputation: false, dkim_selectors: ['s1', 'google'] },
    ],
    [
      'sbom of https://git.example.com/org/app branch release with include dev',
      'sbom',
      'https://git.example.com/org/app',
      { branch: 'release', include_dev: true },
    ],
    [
      'dast scan of https://app.example.com max pages 50 without active',
      'dast',
      'https://app.example.com/',
      { max_pages: 50, active: false },
    ],
    [
      'ai red team of https://llm.example.com/v1/chat/completions api openai model gpt-4o-mini max requests 40',
      'ai_red_team',
      'https://llm.example.com/v1/chat/completions',
      { api: 'openai_chat', model: 'gpt-4o-mini', max_requests: 40 },
    ],
    [
      'm365 scan of contoso.com without adfs dkim selectors selector1',
      'm365',
      'contoso.com',
      { adfs: false, dkim_selectors: ['selector1'] },
    ],
    ['nhi scan of ci-deploy-key max key age 90 days', 'nhi', 'ci-deploy-key', { max_key_age_days: 90 }],
    ['medical scan of pacs.example.org dicom ports 104,11112', 'medical', 'pacs.example.org', { dicom_ports: [104, 11112] }],
    ['dicom scan of 10.0.0.7:4242 called ae titles ORTHANC', 'medical', '10.0.0.7:4242', { called_ae: ['ORTHANC'] }],
    ['vdi scan of desktop.example.com ports 3389,5900-5903', 'vdi', 'desktop.example.com', { ports: '3389,5900-5903' }],
  ];

  it.each(PHRASES)('%s', (sentence, scanType, target, scope) => {
    expect(parseScanPrompt(sentence, context)).toMatchObject({ kind: 'request', request: scan({ scan_type: scanType, target, scope }) });
    // The API takes that scope as it is.
    expect(checkScope(scanType as ScanType, scope, { allowLegacyKeys: false })).toEqual([]);
  });

  it('has a phrase for every scan type an engine runs', () => {
    const covered = new Set(PHRASES.map(([, scanType]) => scanType));
    expect(MANIFESTS.flatMap((manifest) => manifest.scanTypes).filter((scanType) => !covered.has(scanType))).toEqual([]);
  });

  it('keeps options on a schedule, and names none when the sentence names none', () => {
    expect(parseScanPrompt('scan ports 22,2222 on 10.0.0.5 daily', context)).toMatchObject({
      kind: 'request',
      request: schedule({ scan_type: 'vapt', target: '10.0.0.5', cadence: 'daily', scope: { ports: '22,2222' } }),
    });
    const plain = parseScanPrompt('vapt scan of 10.0.0.5 now', context);
    expect(plain.kind === 'request' && plain.request.body).not.toHaveProperty('scope');
  });
});
