/**
 * Compares our permutation engine with dnstwist (Debian package `dnstwist`): for each domain, the
 * names dnstwist attributes to a family must all be in our set for that family. dnstwist keeps a
 * name once, under one family, so its per-family sets are compared with ours before our dedupe.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { FAMILIES, permutationsByFamily, type Family } from '../../src/leak/permutations.ts';

export const DNSTWIST_DICTIONARIES = '/usr/share/dnstwist/dictionaries';
const TLD_FILE = `${DNSTWIST_DICTIONARIES}/common_tlds.dict`;
const WORD_FILE = `${DNSTWIST_DICTIONARIES}/english.dict`;

/** Twenty domains: short and long names, subdomains, two-label suffixes, digits, hyphens, an IDN, a private TLD. */
export const COVERAGE_DOMAINS = [
  'example.com',
  'paypal.com',
  'google.co.uk',
  'bbc.co.uk',
  'mail.example.org',
  'login.microsoft.com',
  'my-bank.de',
  'bank-of-example.net',
  'amazon.com.au',
  'apple.io',
  '365office.com',
  'a1b2.org',
  'xn--bcher-kva.de',
  'github.com',
  'dropbox.com',
  'secure.chase.com',
  'cam.ac.uk',
  'wellsfargo.com',
  'example.test',
  'acmecorp10.com',
];

export function dnstwistInstalled(): boolean {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import dnstwist'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** dnstwist's own dictionary files, so both tools get the same TLD and word lists. */
export function dnstwistLists(): { tlds: string[]; dictionary: string[] } {
  const read = (file: string): string[] =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('//'));
  return { tlds: read(TLD_FILE), dictionary: read(WORD_FILE) };
}

/**
 * One Python process runs dnstwist's own `run()` (what `dnstwist --format list` executes) for every
 * domain, keeping each name's fuzzer; twenty separate CLI processes would cost a CPU-second each.
 */
const DNSTWIST_SCRIPT = `
import contextlib, io, json, sys, dnstwist
domains, tlds, words = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
out = {}
for domain in domains:
    with contextlib.redirect_stdout(io.StringIO()):
        found = dnstwist.run(domain=domain, format='list', tld=tlds, dictionary=words)
    out[domain] = [[item['fuzzer'], item['domain']] for item in found]
print(json.dumps(out))
`;

function runDnstwist(domains: readonly string[]): Promise<Record<string, [string, string][]>> {
  return new Promise((resolve, reject) => {
    execFile(
      '/usr/bin/python3',
      ['-c', DNSTWIST_SCRIPT, JSON.stringify(domains), TLD_FILE, WORD_FILE],
      { maxBuffer: 256 * 1024 * 1024 },
      (error, stdout) => {
        if (error) reject(new Error(`dnstwist failed: ${error.message}`));
        else resolve(JSON.parse(stdout) as Record<string, [string, string][]>);
      },
    );
  });
}

export interface FamilyCoverage {
  family: string;
  theirs: number;
  ours: number;
  covered: number;
  missing: string[];
}

/** Per family, over every domain: how many of dnstwist's names we also generate. */
export async function compareWithDnstwist(domains: readonly string[]): Promise<FamilyCoverage[]> {
  const lists = dnstwistLists();
  const totals = new Map<string, FamilyCoverage>();
  const entry = (family: string): FamilyCoverage => {
    let found = totals.get(family);
    if (!found) totals.set(family, (found = { family, theirs: 0, ours: 0, covered: 0, missing: [] }));
    return found;
  };
  const generated = await runDnstwist(domains);
  for (const domain of domains) {
    const ours = permutationsByFamily(domain, lists);
    for (const [family, names] of ours) entry(family).ours += names.size;
    for (const [fuzzer, name] of generated[domain] ?? []) {
      if (fuzzer === '*original') continue;
      const coverage = entry(fuzzer);
      coverage.theirs += 1;
      if (ours.get(fuzzer as Family)?.has(name)) coverage.covered += 1;
      else coverage.missing.push(`${domain} → ${name}`);
    }
  }
  return [...FAMILIES, ...[...totals.keys()].filter((family) => !(FAMILIES as readonly string[]).includes(family))]
    .filter((family) => totals.has(family))
    .map((family) => entry(family));
}

export function formatCoverage(rows: FamilyCoverage[]): string {
  const lines = [
    'family          dnstwist   ours   covered',
    ...rows.map(
      (row) =>
        `${row.family.padEnd(15)} ${String(row.theirs).padStart(8)} ${String(row.ours).padStart(6)}   ${row.theirs === 0 ? 'n/a' : `${((100 * row.covered) / row.theirs).toFixed(1)}%`}${row.missing.length ? ` (missing e.g. ${row.missing.slice(0, 3).join(', ')})` : ''}`,
    ),
  ];
  return lines.join('\n');
}
