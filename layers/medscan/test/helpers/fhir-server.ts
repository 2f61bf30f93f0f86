/**
 * A real FHIR server from npm (@asymmetrik/node-fhir-server-core, R4 at /4_0_1) with test resolvers
 * for Patient, Observation and Encounter, open or protected by a bearer strategy with SMART declared
 * (rest.security, its oauth-uris extension and /.well-known/smart-configuration). Every request the
 * server receives is logged (method and path), so tests show from the server's side that the scan
 * only ever read.
 */
import { createRequire } from 'node:module';
import type { Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort } from './processes.ts';

const require = createRequire(import.meta.url);
const STRATEGY = fileURLToPath(new URL('../fixtures/fhir-bearer-strategy.ts', import.meta.url));

/** The fixture patients: their names and ids must appear in no scan output. */
export const FHIR_PATIENTS = [
  { resourceType: 'Patient', id: 'fixpat-5521', name: [{ family: 'Vlastimilova', given: ['Zdenka'] }], birthDate: '1961-02-03' },
  { resourceType: 'Patient', id: 'fixpat-5522', name: [{ family: 'Kubricek', given: ['Ottokar'] }], birthDate: '1958-07-09' },
];
export const FHIR_PATIENT_STRINGS = ['fixpat-5521', 'fixpat-5522', 'Vlastimilova', 'Zdenka', 'Kubricek', 'Ottokar', '1961-02-03'];

/** The little of express the helper uses (the package ships no types here). */
interface Request {
  method: string;
  originalUrl: string;
}
interface ExpressApp {
  use: (handler: (req: Request, res: unknown, next: () => void) => void) => void;
  get: (path: string, handler: (req: Request, res: { json: (body: unknown) => void }) => void) => void;
}

export interface FhirServer {
  base: string;
  requests: string[];
  close: () => Promise<void>;
}

export interface FhirOptions {
  smart?: { codeChallengeMethods: string[]; grantTypes: string[] };
}

export async function startFhirServer(options: FhirOptions = {}): Promise<FhirServer> {
  const express = require('express') as () => ExpressApp;
  const { initialize, constants } = require('@asymmetrik/node-fhir-server-core') as {
    initialize: (config: unknown, app: unknown) => { listen: (port: number, host: string, callback: () => void) => void; app: Server };
    constants: { VERSIONS: Record<string, string> };
  };
  const app = express();
  const requests: string[] = [];
  app.use((req, _res, next) => {
    requests.push(`${req.method} ${req.originalUrl}`);
    next();
  });
  const versions = [constants.VERSIONS['4_0_1']];
  // A search resolver answers a searchset Bundle; with _summary=count, only its total (FHIR R4 §3.1.1.5.7).
  const resolver = (resources: unknown[]) => ({
    search: async (_args: unknown, context: { req: { query: Record<string, unknown> } }) =>
      context.req.query._summary === 'count'
        ? { resourceType: 'Bundle', type: 'searchset', total: resources.length }
        : { resourceType: 'Bundle', type: 'searchset', total: resources.length, entry: resources.map((resource) => ({ resource })) },
    searchById: async () => resources[0],
  });
  const observation = {
    resourceType: 'Observation',
    id: 'fixobs-1',
    status: 'final',
    code: { text: 'test' },
    subject: { reference: 'Patient/fixpat-5521' },
  };
  const config: Record<string, unknown> = {
    profiles: {
      patient: { service: resolver(FHIR_PATIENTS), versions },
      observation: { service: resolver([observation]), versions },
      encounter: { service: resolver([]), versions },
    },
    server: { port: 1 },
    logging: { level: 'silent' },
  };
  let origin = '';
  if (options.smart) {
    const smart = options.smart;
    config.auth = { strategy: { name: 'bearer', useSession: false, service: STRATEGY } };
    config.security = [
      { url: 'authorize', valueUri: 'http://127.0.0.1/authorize' },
      { url: 'token', valueUri: 'http://127.0.0.1/token' },
    ];
    app.get('/4_0_1/.well-known/smart-configuration', (_req, res) => {
      res.json({
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        code_challenge_methods_supported: smart.codeChallengeMethods,
        grant_types_supported: smart.grantTypes,
        capabilities: ['launch-standalone'],
      });
    });
  }
  // The server skips authentication when NODE_ENV is `test` (as under vitest): it reads it while
  // building its routes, so the SMART variant is built outside that setting.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'fhir-test-server';
  let server;
  try {
    server = initialize(config, app);
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  // The server refuses port 0 (falsy), so a free port is picked first.
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${port}`;
  return {
    base: `${origin}/4_0_1`,
    requests,
    close: () => new Promise((resolve) => server.app.close(() => resolve())),
  };
}
