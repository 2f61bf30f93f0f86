import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';

/** A small tmpfs to fill; null (and the reason) where this process may not mount one. */
function mountSmallDisk(): { dir: string } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), 'disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs here (needs root): ${String((error as Error).message).split('\n')[0]}` };
  }
}

/** Writes a file until the disk refuses (ENOSPC). */
function fill(dir: string): void {
  const chunk = Buffer.alloc(256 * 1024);
  for (let i = 0; ; i += 1) {
    try {
      writeFileSync(join(dir, `filler-${i}`), chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
      throw error;
    }
  }
}

describe('the local service on a full disk (a small tmpfs)', () => {
  // Mounted here, not at import: a run that filters this suite out must not leave a mount behind.
  let disk: { dir: string } | { skip: string } = { skip: 'not mounted' };
  let dir = '';
  let dataDir = '';
  let service: TestService;
  let token: string;
  let before: { id: string };

  beforeAll(async () => {
    disk = mountSmallDisk();
    if ('skip' in disk) return console.warn(`disk-full test skipped: ${disk.skip}`);
    dir = disk.dir;
    dataDir = join(dir, 'data');
    service = await startTestService({ dataDir });
    token = await service.token('full', 'admin');
    before = (await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() })).body;
  });
  afterAll(async () => {
    if ('skip' in disk) return;
    await service?.stop();
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('stays up, answers 503 storage_unavailable to writes while the disk is full, and serves again once space returns, with nothing half-written', async (context) => {
    if ('skip' in disk) return context.skip(disk.skip);
    fill(dir);

    const refused = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody({ name: 'refused' }) });
    const patched = await service.call(`/api/scans/schedules/${before.id}/`, { method: 'PATCH', token, body: { name: 'renamed' } });
    const health = await service.call('/api/health');
    const whileFull = await service.call(`/api/scans/schedules/${before.id}/`, { token });

    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      error: { code: 'storage_unavailable', message: expect.any(String), details: [], request_id: expect.any(String) },
    });
    expect(patched.status).toBe(503);
    expect(patched.body.error.code).toBe('storage_unavailable');
    expect(health.status).toBe(200);
    expect(whileFull.status).toBe(200);
    expect(whileFull.body.name).toBe('Mail posture');

    for (let i = 0; ; i += 1) {
      try {
        rmSync(join(dir, `filler-${i}`));
      } catch {
        break;
      }
    }
    // The first write after space returns may meet the store while it reopens: it is refused too.
    let created = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody({ name: 'after' }) });
    for (let attempt = 0; created.status === 503 && attempt < 20; attempt += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      created = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody({ name: 'after' }) });
    }
    expect(created.status).toBe(201);
    // The refused create's trigger was taken back: the scheduler holds the two rows' triggers only.
    expect((await service.runtime.scheduler.list()).filter((trigger) => trigger.tenant === 'full')).toHaveLength(2);

    // What was acknowledged survives a restart on the same data; what was refused left nothing.
    await service.stop();
    service = await startTestService({ dataDir });
    const names = (await service.call('/api/scans/schedules/', { token })).body.items.map((row: { name: string }) => row.name);
    expect(names.sort()).toEqual(['Mail posture', 'after']);
    expect(await service.runtime.repo.count('full')).toBe(2);
  });
});
