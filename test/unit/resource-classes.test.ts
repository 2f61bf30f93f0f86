import { describe, expect, it } from 'vitest';
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { MANIFESTS, manifestOfScanType } from '../../layers/manifests.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { ValidationError } from '../../shared/domain/errors.ts';
import type { QueueMessage } from '../../shared/domain/messages.ts';
import {
  RESOURCE_CLASSES,
  admissionProblem,
  deadlineProblem,
  deadlineSeconds,
  deployedResourceClasses,
  resourceClassOf,
  targetsAtOnce,
  type ResourceClass,
} from '../../shared/domain/resource-class.ts';
import type { MessageQueue } from '../../shared/ports/message-queue.ts';
import type { ScanLogs } from '../../shared/ports/scan-log.ts';
import { makeArtifactReferences } from '../../shared/services/artifact-references.ts';
import { makeScanService } from '../../shared/services/scan-service.ts';
import { makeScheduleService } from '../../shared/services/schedule-service.ts';
import { LocalTriggerScheduler } from '../../shared/adapters/local/local-trigger-scheduler.ts';
import { InMemoryArtifactRepository } from '../fakes/in-memory-artifact-repository.ts';
import { InMemoryFindingRepository } from '../fakes/in-memory-finding-repository.ts';
import { InMemoryScanRepository } from '../fakes/in-memory-scan-repository.ts';
import { InMemoryScheduleRepository } from '../fakes/in-memory-schedule-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';

// DESIGN §11 resource classes in the services (docs/resource-classes.md): which queue a manual
// scan lands on, how many of a job's targets run at once, and admission by memory per target.

/** llmscan's manifest as if its targets needed `memoryMbPerTarget` each: the manifests with that one swapped. */
function withLlmscanMemory(memoryMbPerTarget: number): EngineManifest[] {
  return MANIFESTS.map((manifest) => (manifest.name === 'llmscan' ? { ...manifest, memoryMbPerTarget } : manifest));
}

describe('resource classes of the engines', () => {
  it('takes each scan type’s class from its engine’s manifest, standard without one', () => {
    expect(resourceClassOf('ai_red_team')).toBe('long');
    expect(resourceClassOf('email_security')).toBe('standard');
    expect(resourceClassOf('vm')).toBe(manifestOfScanType('vm')!.resourceClass);
    expect(resourceClassOf('medical')).toBe(manifestOfScanType('medical')?.resourceClass ?? 'standard');
  });

  it('deploys standard always and every class a manifest names', () => {
    expect(deployedResourceClasses()).toEqual(['standard', 'long']);
    expect(deployedResourceClasses(MANIFESTS.filter((manifest) => manifest.resourceClass === 'standard'))).toEqual(['standard']);
    expect(deployedResourceClasses([])).toEqual(['standard']);
  });

  it('fits every engine’s target in its class’s memory', () => {
    for (const manifest of MANIFESTS) {
      expect(manifest.memoryMbPerTarget, manifest.name).toBeLessThanOrEqual(RESOURCE_CLASSES[manifest.resourceClass].memoryMb);
      for (const scanType of manifest.scanTypes) expect(admissionProblem(scanType, 100, manifest)).toBeNull();
    }
  });

  it('runs as many targets at once as fit the class’s memory, at most the cap, at least one', () => {
    const long = { ...manifestOfScanType('ai_red_team')!, memoryMbPerTarget: 256 };
    expect(targetsAtOnce('email_security')).toBe(1024 / manifestOfScanType('email_security')!.memoryMbPerTarget);
    expect(targetsAtOnce('ai_red_team', undefined, long)).toBe(12); // 3,072 MB / 256 MB
    expect(targetsAtOnce('ai_red_team', 2, long)).toBe(2);
    expect(targetsAtOnce('ai_red_team', undefined, { ...long, memoryMbPerTarget: 2048 })).toBe(1);
    expect(targetsAtOnce('ai_red_team', undefined, { ...long, memoryMbPerTarget: 4096 })).toBe(1);
    expect(targetsAtOnce('no_engine', 3, undefined)).toBe(3);
  });

  it('says the arithmetic when one target needs more than its class’s function has', () => {
    const heavy = { ...manifestOfScanType('ai_red_team')!, memoryMbPerTarget: 4096 };
    expect(admissionProblem('ai_red_team', 2, heavy)).toBe(
      "ai_red_team needs 4096 MB per target (llmscan's manifest) and its long class's dispatch function has 3072 MB: " +
        '2 targets × 4096 MB = 8192 MB, and not even one target fits',
    );
  });
});

/** A scan service on in-memory stores whose queue records what it was sent and to which class. */
function world(manifests?: readonly EngineManifest[]) {
  const clock = new ManualClock('2026-03-02T10:00:00.000Z');
  const scans = new InMemoryScanRepository();
  const sent: { message: QueueMessage; resourceClass: ResourceClass | undefined }[] = [];
  const queue: MessageQueue = { send: async (message, resourceClass) => void sent.push({ message, resourceClass }) };
  const scanLogs: ScanLogs = {
    location: (scanId, resourceClass) => ({ log_group: `/aws/lambda/dispatch-${resourceClass ?? 'own'}`, insights_query: scanId }),
    loggerFor: () => silentLogger,
    read: async () => null,
  };
  const service = makeScanService({
    scans,
    findings: new InMemoryFindingRepository(),
    schedules: new InMemoryScheduleRepository(),
    queue,
    ids: makeUlidGenerator(() => clock.now().getTime()),
    clock,
    scanLogs,
    logger: silentLogger,
    artifacts: makeArtifactReferences(new InMemoryArtifactRepository(), clock),
    manifests,
  });
  return { service, scans, sent };
}

describe('the scan service routes by class and admits by memory', () => {
  const llm = { scan_type: 'ai_red_team', target: 'https://llm.example.com/v1/chat/completions' } as const;

  it("puts a manual scan on its type's class queue and points its log at that class's dispatch log group", async () => {
    const { service, sent } = world();
    const long = await service.createManual('acme', llm);
    const standard = await service.createManual('acme', { scan_type: 'email_security', target: 'example.com' });

    expect(sent.map(({ message, resourceClass }) => [message.kind === 'scan' && message.scan_id, resourceClass])).toEqual([
      [long.id, 'long'],
      [standard.id, 'standard'],
    ]);
    expect(long.log).toMatchObject({ log_group: '/aws/lambda/dispatch-long' });
    expect(standard.log).toMatchObject({ log_group: '/aws/lambda/dispatch-standard' });
  });

  it('refuses at create a scan whose target cannot fit its class’s memory, with the arithmetic, storing and sending nothing', async () => {
    const { service, scans, sent } = world(withLlmscanMemory(4096));
    const refused = service.createManual('acme', { ...llm, targets: ['https://llm2.example.com/v1/chat/completions'] });

    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({
      details: [
        {
          field: 'targets',
          message:
            "ai_red_team needs 4096 MB per target (llmscan's manifest) and its long class's dispatch function has 3072 MB: " +
            '2 targets × 4096 MB = 8192 MB, and not even one target fits',
        },
      ],
    });
    expect((await scans.list('acme', {}, 100)).items).toEqual([]);
    expect(sent).toEqual([]);
  });
});

describe('the schedule service admits by memory', () => {
  it('refuses at create a schedule whose target cannot fit its class’s memory, storing and provisioning nothing', async () => {
    const clock = new ManualClock('2026-03-02T10:00:00.000Z');
    const repo = new InMemoryScheduleRepository();
    const triggers = new LocalTriggerScheduler({ clock, queue: { send: async () => {} } });
    let n = 0;
    const service = makeScheduleService({
      repo,
      triggers,
      clock,
      ids: { newId: (prefix: string) => `${prefix}_${String(++n).padStart(26, '0')}`, forFire: () => 'scan_unused' },
      logger: silentLogger,
      quota: 10,
      artifacts: makeArtifactReferences(new InMemoryArtifactRepository(), clock),
      manifests: withLlmscanMemory(3073),
    });
    const create = service.create('acme', {
      name: 'llm',
      scan_type: 'ai_red_team',
      target: 'https://llm.example.com/v1/chat/completions',
      cadence: 'daily',
    });

    await expect(create).rejects.toMatchObject({
      details: [
        {
          field: 'targets',
          message:
            "ai_red_team needs 3073 MB per target (llmscan's manifest) and its long class's dispatch function has 3072 MB: " +
            '1 target × 3073 MB = 3073 MB, and not even one target fits',
        },
      ],
    });
    expect(await repo.count('acme')).toBe(0);
    expect(await triggers.list()).toEqual([]);
  });
});

describe('admission by time (DESIGN §11): a target that cannot finish inside its class’s deadline', () => {
  const vapt = manifestOfScanType('vapt')!;

  it('is refused with the arithmetic: a /24 × top1000 at 200 a second takes 1,280 s', () => {
    const problem = deadlineProblem('vapt', { ports: 'top1000' }, '10.0.0.0/24', vapt);
    expect(problem).toBe(
      'cannot finish in time: 10.0.0.0/24 is 256 addresses × 1,000 ports at 200 connections a second = 1,280 s, ' +
        `more than the ${deadlineSeconds(vapt.resourceClass)} s a vapt scan has (its ${vapt.resourceClass} class's deadline); ` +
        'scan fewer ports, a smaller network (or split it into smaller blocks as targets), or a higher rate',
    );
  });

  it.each([
    [{}, '10.0.0.0/24', true], // top100 at the default rate: 256 × 100 ÷ 200 = 128 s
    [{ ports: 'top1000', rate: 1000 }, '10.0.0.0/24', true], // 256 × 1,000 ÷ 1,000 = 256 s
    [{ ports: 'top1000' }, '10.0.0.0/26', false], // 64 × 1,000 ÷ 200 = 320 s
    [{ ports: 'top1000' }, '10.0.0.0/27', true], // 160 s
    [{ ports: '1-65535' }, 'host.example', false], // 65,535 ÷ 200 = 328 s
  ] as const)('%j on %s: admitted %s', (scope, target, admitted) => {
    expect(deadlineProblem('vapt', scope, target, vapt) === null).toBe(admitted);
  });

  it('says nothing for engines that cannot tell their time from the scope, or for a scope it cannot read', () => {
    expect(deadlineProblem('email_security', {}, 'example.com')).toBeNull();
    expect(vapt.minimumSeconds!({ ports: 'not ports' }, '10.0.0.0/24')).toBeNull();
  });

  it('refuses such a scan at create, naming the target, and stores nothing; the same scope on one host is admitted', async () => {
    const { service, scans, sent } = world();
    await expect(
      service.createManual('acme', {
        scan_type: 'vapt',
        target: '93.184.215.14',
        targets: ['93.184.215.0/24'],
        scope: { ports: 'top1000' },
      }),
    ).rejects.toMatchObject({
      details: [{ field: 'targets.0', message: expect.stringContaining('93.184.215.0/24 is 256 addresses × 1,000 ports') }],
    });
    expect((await scans.list('acme', {}, 100)).items).toEqual([]);
    expect(sent).toEqual([]);
    await expect(
      service.createManual('acme', { scan_type: 'vapt', target: '93.184.215.14', scope: { ports: 'top1000' } }),
    ).resolves.toMatchObject({
      status: 'queued',
    });
  });
});
