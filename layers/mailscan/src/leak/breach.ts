import * as z from 'zod';
import { finding, type ReportFinding } from '../catalogue.ts';
import { BREACH, type CheckOutcome, type OptInContext } from '../external/services.ts';
import type { CheckError } from '../reputation/context.ts';
import { openVendor, unavailableOutcome } from '../vendors/vendor-client.ts';
import { maskAddress } from './mask.ts';

const breachSchema = z.looseObject({
  Name: z.string().max(200),
  Title: z.string().max(500).optional(),
  Domain: z.string().max(253).optional(),
  BreachDate: z.string().max(40).optional(),
  AddedDate: z.string().max(40).optional(),
  PwnCount: z.number().int().nonnegative().optional(),
  DataClasses: z.array(z.string().max(200)).max(200).optional(),
});
type Breach = z.infer<typeof breachSchema>;
const breachesSchema = z.array(breachSchema).max(5_000);
/** `{alias: [breach names]}`: the breached addresses of the domain, by local part. */
const breachedDomainSchema = z.record(z.string().max(320), z.array(z.string().max(200)).max(1_000));

const MAX_BREACH_DETAILS = 20;
const SAMPLES = 3;

/**
 * Breach database (Have I Been Pwned v3 shape). Without a key: the breaches of the domain's own site
 * (`GET /breaches?domain=`). With a key, also the domain's breached addresses (`GET /breacheddomain/`)
 * and each of their breaches' details. One finding per breach; addresses only masked and counted.
 */
export async function checkBreaches(ctx: OptInContext): Promise<CheckOutcome<Record<string, unknown>> & { findings: ReportFinding[] }> {
  const opened = openVendor(BREACH, ctx.vendors.breach, { fetch: ctx.fetch, surface: 'leak', check: 'breach' });
  if (!opened.ok) return { status: opened.unavailable.status, ...unavailableOutcome(opened.unavailable) };
  const client = opened.client;
  const errors: CheckError[] = [];
  const { domain } = ctx;

  const own = await client.request({ path: `/breaches?domain=${encodeURIComponent(domain)}` }, breachesSchema);
  const ownBreaches = own.kind === 'ok' ? own.body : [];
  if (own.kind === 'error') errors.push(client.error(`breaches of ${domain}: ${own.message}`));

  const addressesByBreach = new Map<string, string[]>();
  let addressLookup: 'done' | 'no_key' | 'error' = 'no_key';
  if (client.keyed) {
    const breached = await client.request({ path: `/breacheddomain/${encodeURIComponent(domain)}`, keyed: true }, breachedDomainSchema);
    if (breached.kind === 'error') {
      addressLookup = 'error';
      errors.push(client.error(`breached addresses of ${domain}: ${breached.message}`));
    } else {
      addressLookup = 'done';
      for (const [alias, names] of Object.entries(breached.kind === 'ok' ? breached.body : {})) {
        for (const name of names) addressesByBreach.set(name, [...(addressesByBreach.get(name) ?? []), `${alias}@${domain}`]);
      }
    }
  }

  const details = new Map<string, Breach>(ownBreaches.map((breach) => [breach.Name, breach]));
  const missing = [...addressesByBreach.keys()].filter((name) => !details.has(name)).slice(0, MAX_BREACH_DETAILS);
  await Promise.all(
    missing.map(async (name) => {
      const answer = await client.request({ path: `/breach/${encodeURIComponent(name)}` }, breachSchema);
      if (answer.kind === 'ok') details.set(name, answer.body);
      else if (answer.kind === 'error') errors.push(client.error(`breach ${name}: ${answer.message}`));
    }),
  );

  const names = [...new Set([...ownBreaches.map((breach) => breach.Name), ...addressesByBreach.keys()])].sort();
  const findings = names.map((name) => {
    const breach = details.get(name);
    const addresses = addressesByBreach.get(name) ?? [];
    const samples = addresses
      .slice(0, SAMPLES)
      .map(maskAddress)
      .filter((sample): sample is string => sample !== null);
    const ownSite = ownBreaches.some((item) => item.Name === name);
    return finding(
      'mailscan.leak.breachdb_breach',
      'high',
      ownSite
        ? `${domain} itself was breached: ${breach?.Title ?? name}${breach?.BreachDate ? ` (${breach.BreachDate})` : ''}.`
        : `${addresses.length} address(es) of ${domain} appear in the ${breach?.Title ?? name} breach${breach?.BreachDate ? ` (${breach.BreachDate})` : ''}.`,
      {
        breach: name,
        title: breach?.Title ?? null,
        breach_date: breach?.BreachDate ?? null,
        added_date: breach?.AddedDate ?? null,
        data_classes: breach?.DataClasses ?? [],
        kind: ownSite ? 'domain_site' : 'domain_addresses',
        addresses: addresses.length,
        masked_samples: samples,
      },
    );
  });
  const status = errors.length > 0 ? 'error' : 'ok';
  return { status, data: { status, keyed: client.keyed, address_lookup: addressLookup, breaches: names.length }, findings, errors };
}
