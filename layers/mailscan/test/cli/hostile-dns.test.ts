import * as packet from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { scan } from '../helpers/cli.ts';
import { serveFixtureZones } from '../helpers/zone-server.ts';

const FAST_DNS = ['--no-reputation', '--config', 'test/fixtures/mailscan/config/fast-dns.json'];
/** good.test publishes `v=spf1 include:_spf.good.test mx -all` and `_dmarc` with p=reject. */
const DOMAIN = 'good.test';

const OPT = { type: 'OPT', name: '.', udpPayloadSize: 1232, ednsVersion: 0, flags: 0, options: [] };
/** EDNS extended RCODE 16 (BADVERS): the OPT record carries the upper 8 bits, the header says 0. */
const badvers = (reply: Packet): Packet => ({ ...reply, answers: [], additionals: [{ ...OPT, extendedRcode: 1 } as unknown as Answer] });
/** The TXT set of the name the reply answers, replaced by a forged permissive SPF record. */
const forgedPlusAll = (reply: Packet): Packet => ({
  ...reply,
  answers: [{ name: DOMAIN, type: 'TXT', class: 'IN', ttl: 300, data: 'v=spf1 +all' }],
});
const ruleIds = (findings: { rule_id: string }[]) => findings.map((item) => item.rule_id);

/**
 * A hostile or broken DNS server: answers that are errors must read as errors (temperror and an
 * `errors` entry), never as a missing record; answers that are not for our query must be ignored.
 */
describe('mailscan scan: hostile DNS answers', () => {
  const dns = serveFixtureZones();

  describe('errors are not absence', () => {
    it('reads an EDNS extended RCODE (BADVERS) as an error, not as NOERROR without records', async () => {
      dns().behave(DOMAIN, { craft: badvers }, 'TXT');

      const { report } = await scan(DOMAIN, dns().address, FAST_DNS);

      expect(report.surfaces.posture.spf.status).toBe('temperror');
      expect(ruleIds(report.findings)).not.toContain('mailscan.spf.missing');
      expect(report.errors).toContainEqual(expect.objectContaining({ check: 'spf', message: expect.stringContaining('BADVERS') }));
    });

    it('does not accept a TCP answer that is itself truncated', async () => {
      dns().behave(
        `_dmarc.${DOMAIN}`,
        {
          truncate: true,
          craft: (reply, transport) =>
            transport === 'tcp' ? { ...reply, flags: (reply.flags ?? 0) | packet.TRUNCATED_RESPONSE, answers: [] } : reply,
        },
        'TXT',
      );

      const { report } = await scan(DOMAIN, dns().address, FAST_DNS);

      expect(report.surfaces.posture.dmarc.status).toBe('temperror');
      expect(ruleIds(report.findings)).not.toContain('mailscan.dmarc.missing');
      expect(report.errors).toContainEqual(expect.objectContaining({ check: 'dmarc', message: expect.stringContaining('truncated') }));
    });

    it('reads a referral (no answer, NS in authority, not authoritative) as an error, not as NODATA', async () => {
      dns().behave(
        `_dmarc.${DOMAIN}`,
        {
          craft: (reply) => ({
            ...reply,
            flags: (reply.flags ?? 0) & ~packet.AUTHORITATIVE_ANSWER,
            answers: [],
            authorities: [{ name: DOMAIN, type: 'NS', class: 'IN', ttl: 300, data: 'ns.elsewhere.test' }],
          }),
        },
        'TXT',
      );

      const { report } = await scan(DOMAIN, dns().address, FAST_DNS);

      expect(report.surfaces.posture.dmarc.status).toBe('temperror');
      expect(ruleIds(report.findings)).not.toContain('mailscan.dmarc.missing');
      expect(report.errors).toContainEqual(expect.objectContaining({ check: 'dmarc', message: expect.stringContaining('referral') }));
    });
  });

  describe('answers that are not for our query are ignored', () => {
    const expectGenuineSpf = (report: Awaited<ReturnType<typeof scan>>['report']) => {
      expect(report.surfaces.posture.spf).toMatchObject({ status: 'ok', all: '-all', record: 'v=spf1 include:_spf.good.test mx -all' });
      expect(ruleIds(report.findings)).not.toContain('mailscan.spf.permissive_all');
      expect(report.errors).toEqual([]);
    };

    it.each(['other-port', 'other-address'] as const)('ignores a forged +all sent from the %s before the genuine answer', async (from) => {
      dns().behave(DOMAIN, { forge: { from, craft: forgedPlusAll } }, 'TXT');

      const { report } = await scan(DOMAIN, dns().address, FAST_DNS);

      expectGenuineSpf(report);
    });

    it('ignores an answer in class CH, in the question or in the records', async () => {
      dns().behave(
        DOMAIN,
        {
          forge: {
            from: 'server',
            craft: (reply) => {
              const forged = forgedPlusAll(reply);
              return { ...forged, answers: forged.answers!.map((answer) => ({ ...answer, class: 'CH' }) as Answer) };
            },
          },
        },
        'TXT',
      );
      dns().behave(
        `_spf.${DOMAIN}`,
        {
          forge: {
            from: 'server',
            craft: (reply) => ({
              ...reply,
              questions: reply.questions!.map((question) => ({ ...question, class: 'CH' as const })),
              answers: [{ name: `_spf.${DOMAIN}`, type: 'TXT', class: 'CH', ttl: 300, data: 'v=spf1 +all' }],
            }),
          },
        },
        'TXT',
      );

      const { report } = await scan(DOMAIN, dns().address, FAST_DNS);

      expectGenuineSpf(report);
      expect(report.surfaces.posture.spf.tree).toMatchObject({
        terms: [{ term: 'include:_spf.good.test', child: { record: 'v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 -all' } }, {}, {}],
      });
    });

    it('ignores a message with opcode NOTIFY that carries the question', async () => {
      const NOTIFY = 4 << 11;
      dns().behave(
        DOMAIN,
        { forge: { from: 'server', craft: (reply) => ({ ...forgedPlusAll(reply), flags: (reply.flags ?? 0) | NOTIFY }) } },
        'TXT',
      );

      const { report } = await scan(DOMAIN, dns().address, FAST_DNS);

      expectGenuineSpf(report);
    });
  });
});
