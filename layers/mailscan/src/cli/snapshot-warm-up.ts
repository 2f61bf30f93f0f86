import { parseNameservers } from '../../../../lib/dns/nameservers.ts';
import { selectorsToProbe } from '../posture/dkim-selectors.ts';
import { CheckRecorder } from '../scan/check-recorder.ts';
import { placeFindings } from '../place-findings.ts';
import { reportSchema } from '../report.ts';
import { reputationConfigFromEnv } from '../reputation/config-from-env.ts';
import { EmailSecurityScopeFile } from '../scope.ts';
import { parseCommandLine } from '../../../engine-kit/src/cli.ts';
import { mailscanDefinition } from './definition.ts';
import { askedOf } from './scan-settings.ts';

/**
 * Run once while the start-up snapshot is built (bin/mailscan-snapshot.ts), so the code every scan
 * runs before its first query and after its last (the command line, the settings, the report's
 * zod parse and its checks) is compiled and zod's lazily built parts of the report schema exist in
 * the saved heap: V8 keeps the bytecode of functions that ran, and a function that never ran is
 * compiled from source by every process at its first call. Only pure calls on made-up values:
 * nothing read from the environment, the clock or a file, no handle, no random number (the rules
 * in docs/mailscan-startup.md). A scan's own checks run against real answers only.
 */
export function warmUp(): void {
  // The kit's frame: the runner's command line, then the scope file's schema (the frame reads the file).
  parseCommandLine(mailscanDefinition, ['scan', '--format=json', '--timeout=55', '--dkim-selector=s1', '--', 'example.com']);
  parseCommandLine(mailscanDefinition, ['scan', '--scope-json=/run/scope.json', '--timeout=55', '--format=json', '--', 'example.com']);
  askedOf(EmailSecurityScopeFile.parse({ reputation: true, dkim_selectors: ['s1'], rua: ['/run/rua-0.xml'], header: '/run/eml' }));
  parseNameservers(['192.0.2.1:53']);
  selectorsToProbe(undefined, ['s1']);
  const reputation = reputationConfigFromEnv({}, {}, () => []);
  if (!reputation.ok) throw new Error(`snapshot warm-up: ${reputation.message}`);
  // Throws if the schema changed and this sample no longer matches it: the build fails loudly.
  const report = reportSchema.parse({
    scanner: { name: 'mailscan', version: '0.0.0' },
    domain: 'example.com',
    target: 'example.com',
    status: 'partial',
    domain_exists: true,
    started_at: '2000-01-01T00:00:00.000Z',
    finished_at: '2000-01-01T00:00:01.000Z',
    surfaces: {
      posture: {
        status: 'ok',
        score: 50,
        grade: 'C',
        spf: { status: 'ok', record: 'v=spf1 -all', records: ['v=spf1 -all'], lookups: 0, void_lookups: 0, all: '-all', tree: {} },
        dkim: { status: 'ok', selectors_probed: 1, keys: [{ selector: 's1', key_type: 'rsa', bits: 2048, revoked: false }] },
        dmarc: { status: 'ok', record: 'v=DMARC1; p=reject', source: 'domain', policy: 'reject' },
      },
      reputation: { status: 'ok' },
      discover: { status: 'skipped' },
      leak: { status: 'skipped' },
      rua: { status: 'skipped' },
      header: { status: 'skipped' },
    },
    findings: [
      {
        rule_id: 'mailscan.spf.missing',
        severity: 'high',
        title: 'title',
        detail: 'detail',
        evidence: { count: 1 },
        remediation: 'remediation',
        evidence_key: 'key',
      },
    ],
    errors: [{ surface: 'posture', check: 'spf', message: 'message' }],
  });
  JSON.stringify(
    placeFindings({
      ...report,
      checks: new CheckRecorder(report.domain, () => new Date())
        .recorded('posture', [{ rules: ['mailscan.spf.missing'], outcome: 'ran', detail: 'warm', selectors: ['s1'] }])
        .surface(
          'reputation',
          {
            status: 'error',
            data: {},
            findings: [],
            errors: [{ surface: 'reputation', check: 'dnsbl', message: 'warm' }],
            checks: [{ rules: ['mailscan.reputation.mx_score_low'], outcome: 'skipped', detail: 'warm' }],
          },
          '',
        )
        .surface('leak', null, 'not requested')
        .error(['discover'], 'warm')
        .adversary([], [])
        .found(report.findings)
        .finish().checks,
    }),
    null,
    2,
  );
}
