/**
 * Loopback servers that speak each vendor shape of DESIGN §6, one HTTP server with a path prefix per
 * service (the client keeps an endpoint's path prefix), and a CertStream WebSocket server. Every
 * request is recorded with its vendor, so tests can assert who was (not) contacted. Answers are
 * fixed per domain; feed records carry passwords and hashes that must never reach a report.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export const FEED_SECRETS = [
  'Hunter2-Secret!',
  '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy',
  'S3cr3tPassw0rd',
  '5f4dcc3b5aa765d61d8327deb882cf99',
  'PasteLeak-Pa55',
];

export interface VendorRequest {
  vendor: string;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface VendorFakes {
  origin: string;
  requests: VendorRequest[];
  /** MAILSCAN_*_URL for every service, pointing at these fakes. */
  urls: Record<string, string>;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, value: unknown, status = 200): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

function ctAnswer(q: string): unknown[] {
  if (q === '%disc.test') {
    return [
      {
        id: 5001,
        issuer_name: 'C=US, O=Test CA',
        common_name: 'Jane Roe',
        name_value: 'jane.roe@disc.test',
        not_before: '2026-01-01T00:00:00',
        not_after: '2027-01-01T00:00:00',
        entry_timestamp: '2026-01-01T00:01:00',
      },
      {
        id: 5002,
        issuer_name: 'C=US, O=Test CA',
        common_name: 'Bob Smith',
        name_value: 'bob@personal.example',
        not_before: '2026-01-01T00:00:00',
        not_after: '2027-01-01T00:00:00',
        entry_timestamp: '2026-01-01T00:01:00',
      },
      {
        id: 5003,
        issuer_name: 'C=US, O=Test CA',
        common_name: 'www.disc.test',
        name_value: 'www.disc.test\nvpn.disc.test',
        not_before: '2026-01-01T00:00:00',
        not_after: '2027-01-01T00:00:00',
        entry_timestamp: '2026-01-01T00:01:00',
      },
    ];
  }
  if (q === 'brnad.test' || q === 'brnadmail.com') {
    return [
      {
        id: 9001,
        issuer_name: "C=US, O=Let's Encrypt, CN=R10",
        common_name: q,
        name_value: `${q}\nwww.${q}`,
        not_before: '2026-10-01T00:00:00',
        not_after: '2026-12-30T00:00:00',
        entry_timestamp: '2026-10-01T00:05:00',
      },
    ];
  }
  return [];
}

function route(vendor: string, path: string, url: URL, body: string, res: http.ServerResponse): void {
  // The brand answers under two names: brand.test for the CLI, brandmail.com where the API wants a public suffix.
  const domainOf = (text: string): string =>
    text.includes('brand.test') || text.includes('brandmail.com') ? 'brand.test' : text.includes('quiet.test') ? 'quiet.test' : text;
  switch (vendor) {
    case 'ct':
      return json(res, ctAnswer(url.searchParams.get('q') ?? ''));
    case 'hibp':
      if (path === '/breaches') {
        return json(
          res,
          domainOf(url.searchParams.get('domain') ?? '') === 'brand.test'
            ? [
                {
                  Name: 'BrandForum',
                  Title: 'Brand Forum',
                  Domain: 'brand.test',
                  BreachDate: '2024-03-01',
                  AddedDate: '2024-04-01T00:00:00Z',
                  PwnCount: 1200,
                  DataClasses: ['Email addresses', 'Passwords'],
                },
              ]
            : [],
        );
      }
      if (path === '/breacheddomain/brand.test' || path === '/breacheddomain/brandmail.com')
        return json(res, { alice: ['Collection1'], bob: ['Collection1', 'BrandForum'] });
      if (path.startsWith('/breacheddomain/')) return json(res, {});
      if (path === '/breach/Collection1')
        return json(res, {
          Name: 'Collection1',
          Title: 'Collection #1',
          BreachDate: '2019-01-07',
          DataClasses: ['Email addresses', 'Passwords'],
        });
      return json(res, { error: 'not found' }, 404);
    case 'github': {
      const q = url.searchParams.get('q') ?? '';
      if (domainOf(q) === 'brand.test' && q.endsWith(' password')) {
        return json(res, {
          total_count: 1,
          items: [
            {
              name: 'settings.py',
              path: 'app/settings.py',
              html_url: 'https://code.example/acme/app/blob/main/app/settings.py',
              repository: { full_name: 'acme/app' },
            },
          ],
        });
      }
      return json(res, { total_count: 0, items: [] });
    }
    case 'emailrep': {
      const address = decodeURIComponent(path.slice(1));
      if (address === 'jane.roe@disc.test')
        return json(res, {
          email: address,
          reputation: 'low',
          suspicious: true,
          details: { blacklisted: true, malicious_activity: false, credentials_leaked: true, data_breach: true },
        });
      if (address === 'dmarc-reports@disc.test')
        return json(res, {
          email: address,
          reputation: 'medium',
          suspicious: false,
          details: { blacklisted: false, malicious_activity: false, credentials_leaked: true, data_breach: false },
        });
      return json(res, {
        email: address,
        reputation: 'high',
        suspicious: false,
        details: { blacklisted: false, malicious_activity: false, credentials_leaked: false, data_breach: false },
      });
    }
    case 'dehashed': {
      const query = (JSON.parse(body || '{}') as { query?: string }).query ?? '';
      return json(
        res,
        query === 'domain:brand.test' || query === 'domain:brandmail.com'
          ? {
              total: 2,
              entries: [
                {
                  email: ['alice@brand.test'],
                  username: ['alice'],
                  password: [FEED_SECRETS[0]],
                  hashed_password: [FEED_SECRETS[1]],
                  database_name: ['LinkedIn2016'],
                },
                { email: ['bob@brand.test'], username: [], password: [], hashed_password: [], database_name: ['MarketingList'] },
              ],
            }
          : { total: 0, entries: [] },
      );
    }
    case 'intelx':
      if (path === '/intelligent/search') {
        const term = (JSON.parse(body || '{}') as { term?: string }).term ?? '';
        return json(res, { id: domainOf(term) === 'brand.test' ? 'search-brand' : 'search-empty' });
      }
      if (path === '/intelligent/search/result') {
        return json(
          res,
          url.searchParams.get('id') === 'search-brand'
            ? { status: 1, records: [{ systemid: 'a1', name: `paste ${FEED_SECRETS[4]}`, bucket: 'pastes', date: '2025-06-01T00:00:00Z' }] }
            : { status: 1, records: [] },
        );
      }
      return json(res, {}, 404);
    case 'snusbase': {
      const terms = (JSON.parse(body || '{}') as { terms?: string[] }).terms ?? [];
      return json(
        res,
        terms.some((term) => domainOf(term) === 'brand.test')
          ? {
              results: {
                collection_2019: [{ email: 'carol@brand.test', username: 'carol', password: FEED_SECRETS[2], hash: FEED_SECRETS[3] }],
              },
            }
          : { results: {} },
      );
    }
    default:
      return json(res, {}, 404);
  }
}

export async function startVendorFakes(): Promise<VendorFakes> {
  const requests: VendorRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const [, vendor, ...rest] = url.pathname.split('/');
      const path = `/${rest.join('/')}`;
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ vendor, method: req.method ?? '', path: `${path}${url.search}`, headers: req.headers, body });
      route(vendor, path, url, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    urls: {
      MAILSCAN_CT_URL: `${origin}/ct`,
      MAILSCAN_BREACH_URL: `${origin}/hibp`,
      MAILSCAN_CODESEARCH_URL: `${origin}/github`,
      MAILSCAN_EMAILREP_URL: `${origin}/emailrep`,
      MAILSCAN_DEHASHED_URL: `${origin}/dehashed`,
      MAILSCAN_INTELX_URL: `${origin}/intelx`,
      MAILSCAN_SNUSBASE_URL: `${origin}/snusbase`,
      // Reputation vendors are key-gated and get no key in these tests; point them here anyway.
      MAILSCAN_THREATINTEL_URL: `${origin}/threatintel`,
      MAILSCAN_SENDERSCORE_URL: `${origin}/senderscore`,
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every key-gated service's key (the breach key is optional: it unlocks the per-address lookup). */
export const VENDOR_KEYS = {
  MAILSCAN_BREACH_KEY: 'hibp-key-0123456789',
  MAILSCAN_CODESEARCH_KEY: 'github-key-0123456789',
  MAILSCAN_EMAILREP_KEY: 'emailrep-key-0123456789',
  MAILSCAN_DEHASHED_KEY: 'dehashed-key-0123456789',
  MAILSCAN_INTELX_KEY: 'intelx-key-0123456789',
  MAILSCAN_SNUSBASE_KEY: 'snusbase-key-0123456789',
};

export interface CertstreamFake {
  url: string;
  connections: number;
  close(): Promise<void>;
}

/** A CertStream server: on each connection it sends these certificate updates (and a heartbeat first). */
export async function startCertstreamFake(domainsPerCertificate: string[][]): Promise<CertstreamFake> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const state = { connections: 0 };
  server.on('connection', (socket) => {
    state.connections += 1;
    socket.send(JSON.stringify({ message_type: 'heartbeat', timestamp: 1_790_000_000 }));
    for (const [index, domains] of domainsPerCertificate.entries()) {
      socket.send(
        JSON.stringify({
          message_type: 'certificate_update',
          data: { cert_index: 700 + index, seen: 1_790_000_000 + index, leaf_cert: { all_domains: domains } },
        }),
      );
    }
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
