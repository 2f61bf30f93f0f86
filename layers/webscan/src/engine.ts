/**
 * The webscan engine as the kit's CLI frame runs it (DESIGN §17): resolve and vet the target's
 * host once; judge plain HTTP; learn the not-found shape; crawl with every passive check on every
 * response; run the fixed exposure probes, the CORS null-origin request, OPTIONS and one TRACE;
 * look library versions up in OSV; the two safe active checks when the scope enables them. The
 * scan keeps a few seconds of its deadline back so that it always records what it saw.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CouldNotStart, type EngineDefinition, type ScanContext } from '../../engine-kit/src/cli.ts';
import { credentialAllowsHost, type LoadedCredential } from '../../../lib/credential.ts';
import { resolveTarget } from '../../../lib/target-policy.ts';
import { WEB_RULE_IDS, catalogue, type WebRuleId } from './catalogue.ts';
import { runActiveChecks } from './checks/active.ts';
import { cookiesCheck } from './checks/cookies.ts';
import { makeCorsCheck } from './checks/cors.ts';
import { makeDisclosureCheck } from './checks/disclosure.ts';
import { PROBES, PROBE_RULES, directoryListingCheck, judgeProbe } from './checks/exposure.ts';
import { headersCheck } from './checks/headers.ts';
import { JsLibraries, librariesFromPackageJson } from './checks/js-libraries.ts';
import { runMethodChecks } from './checks/methods.ts';
import { sriCheck } from './checks/sri.ts';
import { judgeHttpOnly, mixedContentCheck } from './checks/transport.ts';
import { crawl, pathOf } from './crawler.ts';
import { anyGlob } from './glob.ts';
import { isHtml } from './html.ts';
import { OriginClient, RequestFailed } from './http-client.ts';
import { Ledger } from './ledger.ts';
import { looksNotFound, shapeOf, type NotFoundShape } from './not-found.ts';
import { isSuccess, type Page, type PassiveCheck } from './page.ts';
import { DEFAULTS, WebScope } from './scope.ts';
import { collectSeeds } from './seeds.ts';
import { parseWebTarget } from './target.ts';
import { WEBSCAN_VERSION } from './version.ts';

/** Rules judged on the crawl's pages: a page that could not be analysed is an error for each. */
const PAGE_RULES: readonly WebRuleId[] = [
  'web.headers.csp_missing',
  'web.headers.csp_weak',
  'web.headers.clickjacking',
  'web.headers.nosniff_missing',
  'web.headers.referrer_policy_missing',
  'web.headers.hsts_missing',
  'web.cookie.no_secure',
  'web.cookie.no_httponly',
  'web.cookie.no_samesite',
  'web.disclosure.version_header',
  'web.disclosure.debug_error',
  'web.disclosure.private_ip',
  'web.transport.mixed_content',
  'web.cors.permissive',
  'web.exposure.directory_listing',
  'web.sri.missing',
  'web.js.vulnerable_library',
];
/** Rules that read the body: a page cut at the size cap was analysed only in part for these. */
const BODY_RULES: readonly WebRuleId[] = [
  'web.disclosure.debug_error',
  'web.disclosure.private_ip',
  'web.transport.mixed_content',
  'web.exposure.directory_listing',
  'web.sri.missing',
  'web.js.vulnerable_library',
];
const ACTIVE_RULES: readonly WebRuleId[] = ['web.redirect.open', 'web.xss.reflected_marker'];

const MAX_BODY_BYTES = 2 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;

/** WEBSCAN_REQUEST_TIMEOUT_MS: one response's time bound (1 to 60 s; 10 s by default). */
function requestTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.WEBSCAN_REQUEST_TIMEOUT_MS);
  return Number.isInteger(value) && value >= 1000 && value <= 60_000 ? value : REQUEST_TIMEOUT_MS;
}
const NO_JS = ' (no JavaScript run: pages analysed as served)';

export const webscan: EngineDefinition<WebScope> = {
  name: 'webscan',
  version: WEBSCAN_VERSION,
  envPrefix: 'WEBSCAN',
  targetHelp: 'an http(s) URL, e.g. https://shop.example.com/',
  catalogue: () => catalogue,
  scopeSchema: () => WebScope,
  parseTarget: (raw) => {
    const parsed = parseWebTarget(raw);
    return parsed.ok ? { ok: true, target: parsed.url.href } : parsed;
  },
  scan: scanWebsite,
};

/**
 * The scope credential's header (an `http_header` credential, DESIGN §16), or undefined without
 * one. Another kind, a missing file, or a target host the credential does not allow stops the scan
 * before anything is sent; the messages name the alias, never the value.
 */
export function credentialHeader(
  alias: string | undefined,
  credential: LoadedCredential | undefined,
  url: URL,
): { name: string; value: string } | undefined {
  if (alias === undefined) return undefined;
  if (!credential) throw new CouldNotStart(`the scope names credential ${alias}, but no --credential-file was given`);
  if (credential.kind !== 'http_header') throw new CouldNotStart(`credential ${alias} is a ${credential.kind}, not an http_header`);
  if (!credentialAllowsHost(credential, url.hostname))
    throw new CouldNotStart(`credential ${alias} is not allowed for ${url.hostname}: nothing was sent`);
  const secret = credential.secret;
  return { name: secret.name, value: secret.value };
}

async function scanWebsite({ target, scope, deadline, policy, report, progress, env, credential }: ScanContext<WebScope>): Promise<void> {
  const parsed = parseWebTarget(target);
  if (!parsed.ok) throw new Error(parsed.message);
  const start = parsed.url;
  const header = credentialHeader(scope.credential, credential, start);
  const [address] = await resolveTarget(start.hostname, policy);
  progress('web.target', { origin: start.origin, address: address.address });

  // Keep time back to write the report: requests abort at `soft`, the frame's deadline comes after.
  const total = deadline.remainingMs();
  const soft = deadline.child(total - Math.min(5_000, total * 0.1));
  const nonce = randomBytes(6).toString('hex');
  const ledger = new Ledger(scope.ignore);
  const extraCa = env.EXTRA_CA_FILE ? await readFile(env.EXTRA_CA_FILE, 'utf8') : undefined;
  let client = new OriginClient({
    origin: start,
    address,
    rate: scope.rate ?? DEFAULTS.rate,
    timeoutMs: requestTimeoutMs(env),
    maxBodyBytes: MAX_BODY_BYTES,
    extraCa,
    signal: soft.signal,
    userAgent: `webscan/${WEBSCAN_VERSION}`,
    credentialHeader: header,
  });
  const clients = [client];
  try {
    // 1. Plain HTTP: does it send us to HTTPS? An upgrade to https:// on the same host is followed
    //    (the crawl then runs on the HTTPS origin); any other redirect is not.
    let crawlStart = start;
    if (start.protocol === 'http:') {
      let upgrade: URL | undefined;
      try {
        const response = await client.request(start, { maxBodyBytes: 65_536 });
        upgrade = judgeHttpOnly(ledger, start, { status: response.status, location: response.headers.location });
      } catch (error) {
        judgeHttpOnly(ledger, start, { error: (error as Error).message });
      }
      if (upgrade && upgrade.hostname === start.hostname) {
        client = client.forOrigin(upgrade);
        clients.push(client);
        crawlStart = upgrade;
        progress('web.upgraded', { origin: upgrade.origin });
      }
    } else ledger.skip('web.transport.http_only', 'the target is https://');
    if (client.origin.protocol !== 'https:') {
      ledger.skip(
        ['web.headers.hsts_missing', 'web.cookie.no_secure', 'web.transport.mixed_content'],
        'the site is served over plain HTTP only',
      );
    }

    // 2. The not-found shape, before seeds and probes read anything.
    const shapes: NotFoundShape[] = [];
    let shapeError: string | undefined;
    for (const path of [`/${nonce}-${randomBytes(4).toString('hex')}.txt`, `/.${nonce}${randomBytes(4).toString('hex')}`]) {
      try {
        shapes.push(shapeOf(await client.request(new URL(path, client.origin), { maxBodyBytes: 262_144 }), path));
      } catch (error) {
        shapeError = (error as Error).message;
      }
    }
    const blockedShape = shapes.find((shape) => shape.status === 429 || shape.status === 503);
    if (blockedShape) shapeError = `HTTP ${blockedShape.status} for a random path`;

    // 3. Seeds and the crawl, every passive check on every response.
    const { seeds, notes } = await collectSeeds(client, scope.openapi, shapes);
    const probeOrigin = `https://${nonce}.invalid`;
    const cors = makeCorsCheck(probeOrigin);
    const libraries = new JsLibraries();
    const passive: PassiveCheck[] = [
      headersCheck,
      cookiesCheck,
      makeDisclosureCheck(address.address),
      mixedContentCheck,
      sriCheck,
      cors,
      directoryListingCheck,
      libraries,
    ];
    const crawlResult = await crawl({
      client,
      start: crawlStart,
      seeds,
      maxPages: scope.max_pages ?? DEFAULTS.max_pages,
      maxDepth: scope.max_depth ?? DEFAULTS.max_depth,
      include: anyGlob(scope.include_paths),
      exclude: anyGlob(scope.exclude_paths),
      headers: { origin: probeOrigin },
      signal: soft.signal,
      onPage: (page) => passive.forEach((check) => check.inspect(page, ledger)),
      progress,
    });
    progress('web.crawled', { pages: crawlResult.pages, failures: crawlResult.failures.length, unvisited: crawlResult.unvisited });
    for (const failure of crawlResult.failures) ledger.error(PAGE_RULES, `${failure.path} could not be analysed: ${failure.reason}`);
    for (const path of crawlResult.truncated)
      ledger.error(BODY_RULES, `${path} is larger than ${MAX_BODY_BYTES} bytes: its body was analysed only in part`);
    const startRedirect = crawlResult.offOrigin.find((redirect) => redirect.from === pathOf(crawlStart));
    if (startRedirect) ledger.error(PAGE_RULES, `the target redirects to ${startRedirect.to}, another origin: not followed`);
    if (crawlResult.stoppedBy === 'deadline')
      ledger.error(PAGE_RULES, `the deadline stopped the crawl with ${crawlResult.unvisited} URLs not visited`);
    const crawlNote = `${crawlResult.pages} pages crawled${crawlResult.stoppedBy === 'max_pages' ? ` (max_pages reached, ${crawlResult.unvisited} URLs left)` : ''}${notes.length ? `; seeds: ${notes.join('; ')}` : ''}`;

    // 4. The fixed exposure probes, guarded by the not-found shape.
    if (shapeError || shapes.length < 2) {
      ledger.error(
        PROBE_RULES,
        `the site's not-found shape could not be learned (${shapeError ?? 'no answer'}): no probe is judged without it`,
      );
    } else {
      for (const probe of PROBES) {
        if (soft.expired()) {
          ledger.error(probe.rule, `the deadline passed before the probe of ${probe.path}`);
          continue;
        }
        try {
          judgeProbe(ledger, probe, await client.request(new URL(probe.path, client.origin), { maxBodyBytes: 262_144 }), shapes);
        } catch (error) {
          ledger.error(probe.rule, `the probe of ${probe.path} failed: ${(error as Error).message}`);
        }
      }
    }

    // 5. CORS with `Origin: null` on the start page.
    try {
      const response = await client.request(crawlStart, { headers: { origin: 'null' }, maxBodyBytes: 65_536 });
      const page: Page = { url: crawlStart, path: pathOf(crawlStart), response, text: '' };
      cors.judge(page, ledger, 'null');
    } catch (error) {
      ledger.error('web.cors.permissive', `GET ${crawlStart.pathname} with Origin: null failed: ${(error as Error).message}`);
    }

    // 6. OPTIONS and TRACE.
    await runMethodChecks(client, ledger, [...crawlResult.endpoints, ...crawlResult.directories], nonce);

    // 7. Libraries: a served package.json, then OSV.
    let packageNote = 'no package.json served';
    try {
      const response = await client.request(new URL('/package.json', client.origin), { maxBodyBytes: 262_144 });
      if (isSuccess(response.status) && !isHtml(response.headers) && !looksNotFound(response, '/package.json', shapes)) {
        const found = librariesFromPackageJson(response.body.toString('utf8'), '/package.json');
        if (found) {
          packageNote = `package.json served with ${found.length} exact dependency version${found.length === 1 ? '' : 's'}`;
          found.forEach((library) => libraries.add(library));
        }
      }
    } catch (error) {
      if (!(error instanceof RequestFailed)) throw error;
      ledger.error('web.js.vulnerable_library', `GET /package.json failed: ${error.message}`);
    }
    await libraries.judge(ledger, env.WEBSCAN_OSV_URL || 'https://api.osv.dev', soft.signal, packageNote);

    // 8. The safe active checks, only when asked for.
    if (scope.active) await runActiveChecks(client, ledger, crawlResult.withQuery, nonce);
    else ledger.skip(ACTIVE_RULES, 'active checks are off (scope.active)');

    const origin = new URL(target).origin;
    ledger.record(report, PAGE_RULES, `; ${crawlNote}${NO_JS}`, origin);
    ledger.record(
      report,
      WEB_RULE_IDS.filter((rule) => !PAGE_RULES.includes(rule)),
      '',
      origin,
    );
    progress('web.requests', {
      ...clients.reduce((sum, each) => addCounts(sum, each.sent), {} as Record<string, number>),
      busiest_second: busiestSecond(client.sentAt),
    });
  } finally {
    for (const each of clients) each.close();
  }
}

/** The most requests that left within any one second. */
export function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < sorted.length; i += 1) {
    while (sorted[i] - sorted[j] >= 1000) j += 1;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
}

function addCounts(sum: Record<string, number>, counts: Record<string, number>): Record<string, number> {
  for (const [method, count] of Object.entries(counts)) sum[method] = (sum[method] ?? 0) + count;
  return sum;
}
