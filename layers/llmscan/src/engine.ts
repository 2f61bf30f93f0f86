/**
 * llmscan as the kit's CLI frame runs it: the target URL's host is resolved once under the target
 * policy and every request goes to that vetted address. `makeLlmscan` takes a clock so tests run
 * the rate, the Retry-After waits and the deadline on virtual time.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { CouldNotStart, type EngineDefinition } from '../../engine-kit/src/cli.ts';
import { credentialAllowsHost, type LoadedCredential } from '../../../lib/credential.ts';
import { Deadline } from '../../engine-kit/src/deadline.ts';
import { resolveTarget } from '../../../lib/target-policy.ts';
import { catalogue } from './catalogue.ts';
import { makeExchanger } from './exchange.ts';
import { RequestGate, systemClock, type Clock } from './gate.ts';
import { runScan } from './scan.ts';
import { LlmScope, settingsOf } from './scope.ts';
import { randomSeed } from './seed.ts';
import { parseLlmTarget } from './target.ts';
import { vettedTransport } from './transport.ts';
import { LLMSCAN_VERSION } from './version.ts';

/** Settings from LLMSCAN_* variables, each bounded. */
export function envSettings(env: Readonly<Record<string, string | undefined>>): {
  requestTimeoutMs: number;
  concurrency: number;
  maxAnswerBytes: number;
} {
  const number = (name: string, fallback: number, min: number, max: number): number => {
    const value = Number(env[name] ?? fallback);
    return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
  };
  return {
    requestTimeoutMs: number('LLMSCAN_REQUEST_TIMEOUT_SECONDS', 60, 0.1, 600) * 1000,
    concurrency: Math.floor(number('LLMSCAN_CONCURRENCY', 4, 1, 16)),
    maxAnswerBytes: Math.floor(number('LLMSCAN_MAX_ANSWER_KIB', 1024, 1, 16_384) * 1024),
  };
}

/**
 * The headers of the scope's credential (`Authorization: Bearer <token>`, or the header the
 * credential names, with the bare token), or undefined without one. A credential of another kind,
 * a missing file, or a target host the credential does not allow stops the scan before anything is
 * sent; the messages name the alias, never the key.
 */
export function credentialHeaders(
  alias: string | undefined,
  credential: LoadedCredential | undefined,
  url: URL,
): Record<string, string> | undefined {
  if (alias === undefined) return undefined;
  if (!credential) throw new CouldNotStart(`the scope names credential ${alias}, but no --credential-file was given`);
  if (credential.kind !== 'llm_api_key') throw new CouldNotStart(`credential ${alias} is a ${credential.kind}, not an llm_api_key`);
  if (!credentialAllowsHost(credential, url.hostname))
    throw new CouldNotStart(`credential ${alias} is not allowed for ${url.hostname}: nothing was sent`);
  const secret = credential.secret;
  const header = (secret.header ?? 'authorization').toLowerCase();
  return { [header]: header === 'authorization' ? `Bearer ${secret.token}` : secret.token };
}

export function makeLlmscan(options: { clock?: Clock } = {}): EngineDefinition<LlmScope> {
  const clock = options.clock ?? systemClock;
  return {
    name: 'llmscan',
    version: LLMSCAN_VERSION,
    envPrefix: 'LLMSCAN',
    targetHelp: 'the http(s) URL completions are POSTed to, e.g. https://llm.example.com/v1/chat/completions',
    catalogue: () => catalogue,
    scopeSchema: () => LlmScope,
    // Long: a model answering in 3 s at 1 request a second takes minutes for the default 150 requests.
    defaultTimeoutSeconds: 840,
    parseTarget: (raw) => {
      const parsed = parseLlmTarget(raw);
      return parsed.ok ? { ok: true, target: parsed.url.href } : parsed;
    },
    scan: async ({ target, scope, deadline, policy, report, progress, env, credential }) => {
      const parsed = parseLlmTarget(target);
      if (!parsed.ok) throw new Error(parsed.message);
      const url = parsed.url;
      const [address] = await resolveTarget(url.hostname, policy);
      const settings = settingsOf(scope);
      const seed = settings.seed ?? randomSeed();
      const { requestTimeoutMs, concurrency, maxAnswerBytes } = envSettings(env);
      const headers = credentialHeaders(scope.credential, credential, url);
      const ca = env.EXTRA_CA_FILE ? [...rootCertificates, readFileSync(env.EXTRA_CA_FILE, 'utf8')] : undefined;
      progress('llm.target', { url: url.href, address: address.address, api: settings.api, seed });
      // On the system clock this is the frame's deadline; on a test's clock, the same budget in its time.
      const time = options.clock ? new Deadline(deadline.remainingMs(), () => clock.now(), deadline.signal) : deadline;
      const transport = vettedTransport({
        host: url.hostname,
        address,
        allowPrivate: policy.allowPrivate,
        allowLoopback: policy.allowLoopback,
        maxBytes: maxAnswerBytes,
        ca,
        credential: headers && { headers, origin: url.origin },
      });
      const gate = new RequestGate({ maxRequests: settings.maxRequests, rate: settings.rate, clock, time });
      // Every probe family examines the one endpoint as a whole: a check that ran resolves that endpoint's
      // issue for its rule (DESIGN §15); a family the scope leaves out is skipped and resolves nothing.
      report.covered({ kind: 'target' });
      await runScan({
        target: url,
        settings,
        seed,
        gate,
        exchanger: makeExchanger({ transport, gate, clock, time, seed, requestTimeoutMs }),
        report,
        progress,
        concurrency,
        signal: time.signal,
      });
    },
  };
}

export const llmscan = makeLlmscan();
