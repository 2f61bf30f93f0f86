import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../shared/domain/errors.ts';
import type { LegacyModel } from '../../shared/domain/legacy/legacy-schedule.ts';
import type { LegacyMarker, LegacyMarkerRepository } from '../../shared/ports/legacy-marker-repository.ts';

/** What a contract run needs from an adapter: an empty repository and how to dispose of it. */
export interface LegacyMarkerRepositorySubject {
  markers: LegacyMarkerRepository;
  cleanup?: () => Promise<void>;
}

const SECRETS: LegacyModel = 'secretscan.schedule';
const NETWORK: LegacyModel = 'network.continuousschedule';

function marker(tenant: string, model: LegacyModel, legacyId: string, overrides: Partial<LegacyMarker> = {}): LegacyMarker {
  return {
    tenant,
    model,
    legacyId,
    scheduleId: `sch_${model === SECRETS ? 'S' : 'N'}${legacyId.padStart(25, '0')}`,
    legacyTaskId: Number(legacyId) + 1000,
    disablesLegacyTask: true,
    state: 'pending',
    claimedAt: '2026-03-02T10:00:00.000Z',
    runId: 'run_01',
    ...overrides,
  };
}

async function listed(markers: LegacyMarkerRepository, tenant: string): Promise<LegacyMarker[]> {
  const found: LegacyMarker[] = [];
  for await (const item of markers.list(tenant)) found.push(item);
  return found;
}

/**
 * Behaviour every LegacyMarkerRepository must have: the DynamoDB adapter (on dynalite) and the
 * in-memory fake the backfill's unit tests use. The adapter is the truth.
 */
export function describeLegacyMarkerRepositoryContract(name: string, makeSubject: () => Promise<LegacyMarkerRepositorySubject>): void {
  describe(`LegacyMarkerRepository contract: ${name}`, () => {
    let subject: LegacyMarkerRepositorySubject;
    let markers: LegacyMarkerRepository;

    beforeEach(async () => {
      subject = await makeSubject();
      markers = subject.markers;
    });

    afterEach(async () => {
      await subject.cleanup?.();
    });

    it('claims a marker once: the first claim wins and the second changes nothing', async () => {
      const first = marker('acme', SECRETS, '7');

      const claims = [
        await markers.claim(first),
        await markers.claim(marker('acme', SECRETS, '7', { runId: 'run_02', scheduleId: 'sch_other' })),
      ];

      expect(claims).toEqual([true, false]);
      expect(await markers.get('acme', SECRETS, '7')).toEqual(first);
    });

    it('lets exactly one of concurrent claims of the same row win', async () => {
      const claims = await Promise.all(['run_a', 'run_b', 'run_c'].map((runId) => markers.claim(marker('acme', SECRETS, '7', { runId }))));

      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('keys a marker by tenant, model and legacy id', async () => {
      await markers.claim(marker('acme', SECRETS, '7'));

      expect(await markers.claim(marker('acme', NETWORK, '7'))).toBe(true);
      expect(await markers.claim(marker('globex', SECRETS, '7'))).toBe(true);
      expect(await markers.get('acme', SECRETS, '8')).toBeNull();
      expect(await markers.get('initech', SECRETS, '7')).toBeNull();
    });

    it('marks a marker done and refuses to mark a missing one', async () => {
      await markers.claim(marker('acme', SECRETS, '7'));

      await markers.markDone('acme', SECRETS, '7');

      expect((await markers.get('acme', SECRETS, '7'))?.state).toBe('done');
      await expect(markers.markDone('acme', SECRETS, '8')).rejects.toBeInstanceOf(NotFoundError);
      await expect(markers.markDone('globex', SECRETS, '7')).rejects.toBeInstanceOf(NotFoundError);
      expect(await markers.get('acme', SECRETS, '8')).toBeNull();
      expect(await markers.get('globex', SECRETS, '7')).toBeNull();
    });

    it("lists one tenant's markers in key order (model, then legacy id as text)", async () => {
      for (const item of [
        marker('acme', SECRETS, '7'),
        marker('acme', NETWORK, '2'),
        marker('globex', SECRETS, '1'),
        marker('acme', SECRETS, '10'),
        marker('acme', NETWORK, '1'),
      ]) {
        await markers.claim(item);
      }

      const acme = await listed(markers, 'acme');

      expect(acme.map((item) => `${item.model}#${item.legacyId}`)).toEqual([
        'network.continuousschedule#1',
        'network.continuousschedule#2',
        'secretscan.schedule#10',
        'secretscan.schedule#7',
      ]);
      expect(acme[0]).toEqual(marker('acme', NETWORK, '1'));
      expect(await listed(markers, 'initech')).toEqual([]);
    });

    it('deletes one marker, and deleting a missing one is not an error', async () => {
      await markers.claim(marker('acme', SECRETS, '7'));
      await markers.claim(marker('globex', SECRETS, '7'));

      await markers.delete('acme', SECRETS, '7');
      await markers.delete('acme', SECRETS, '7');

      expect(await markers.get('acme', SECRETS, '7')).toBeNull();
      expect(await markers.get('globex', SECRETS, '7')).not.toBeNull();
      expect(await markers.claim(marker('acme', SECRETS, '7'))).toBe(true);
    });
  });
}
