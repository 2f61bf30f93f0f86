import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ArtifactRecord } from '../../shared/domain/artifact.ts';
import { ConflictError } from '../../shared/domain/errors.ts';
import type { ArtifactRepository } from '../../shared/ports/artifact-repository.ts';

/** What a contract run needs from an adapter: an empty repository and how to dispose of it. */
export interface ArtifactRepositorySubject {
  repo: ArtifactRepository;
  cleanup?: () => Promise<void>;
}

function artifact(tenant: string, id: string, overrides: Partial<ArtifactRecord> = {}): ArtifactRecord {
  return {
    id,
    tenant,
    purpose: 'rua',
    filename: 'google.xml',
    size: 1234,
    content_type: 'application/xml',
    status: 'pending',
    sha256: null,
    reason: null,
    created_at: '2026-03-02T10:00:00.000Z',
    expires_at: '2026-04-01T10:00:00.000Z',
    ...overrides,
  };
}

const SHA = 'a'.repeat(64);

/**
 * Behaviour every ArtifactRepository must have: the DynamoDB adapter (on dynalite) and the
 * in-memory fake. The adapter is the truth.
 */
export function describeArtifactRepositoryContract(name: string, makeSubject: () => Promise<ArtifactRepositorySubject>): void {
  describe(`ArtifactRepository contract: ${name}`, () => {
    let subject: ArtifactRepositorySubject;
    let repo: ArtifactRepository;

    beforeEach(async () => {
      subject = await makeSubject();
      repo = subject.repo;
    });

    afterEach(async () => {
      await subject.cleanup?.();
    });

    it("returns what was created; null for an unknown id and for another tenant's row", async () => {
      const record = artifact('acme', 'art_01');

      await repo.create(record);

      expect(await repo.get('acme', 'art_01')).toEqual(record);
      expect(await repo.get('acme', 'art_02')).toBeNull();
      expect(await repo.get('globex', 'art_01')).toBeNull();
    });

    it('refuses to create an id that exists and keeps the first row', async () => {
      await repo.create(artifact('acme', 'art_01'));

      await expect(repo.create(artifact('acme', 'art_01', { filename: 'other.xml' }))).rejects.toBeInstanceOf(ConflictError);

      expect((await repo.get('acme', 'art_01'))?.filename).toBe('google.xml');
    });

    it('settles a pending artifact once and returns it as it now is', async () => {
      await repo.create(artifact('acme', 'art_01'));

      const ready = await repo.settle('acme', 'art_01', { status: 'ready', sha256: SHA, reason: null });
      const again = await repo.settle('acme', 'art_01', { status: 'rejected', sha256: null, reason: 'too late' });

      expect(ready).toEqual(artifact('acme', 'art_01', { status: 'ready', sha256: SHA }));
      expect(again).toBeNull();
      expect(await repo.get('acme', 'art_01')).toEqual(ready);
    });

    it("settles nothing for a missing id or another tenant's row", async () => {
      await repo.create(artifact('acme', 'art_01'));

      expect(await repo.settle('acme', 'art_09', { status: 'ready', sha256: SHA, reason: null })).toBeNull();
      expect(await repo.settle('globex', 'art_01', { status: 'rejected', sha256: null, reason: 'not yours' })).toBeNull();

      expect(await repo.get('globex', 'art_01')).toBeNull();
      expect((await repo.get('acme', 'art_01'))?.status).toBe('pending');
    });

    it('lets exactly one of concurrent settles win', async () => {
      await repo.create(artifact('acme', 'art_01'));

      const outcomes = await Promise.all([
        repo.settle('acme', 'art_01', { status: 'ready', sha256: SHA, reason: null }),
        repo.settle('acme', 'art_01', { status: 'rejected', sha256: null, reason: 'second check' }),
      ]);

      expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
    });

    it('hands out copies: changing a returned record changes nothing stored', async () => {
      await repo.create(artifact('acme', 'art_01'));

      const read = await repo.get('acme', 'art_01');
      read!.status = 'ready';

      expect((await repo.get('acme', 'art_01'))?.status).toBe('pending');
    });
  });
}
