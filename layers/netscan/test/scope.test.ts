import { describe, expect, it } from 'vitest';
import { NetscanScope } from '../src/index.ts';
import { checkScope } from '../../../shared/domain/scope.ts';

describe('vm and vapt scopes', () => {
  it("are checked by the API with netscan's request schema", () => {
    expect(checkScope('vm', { ports: '22,80,443', rate: 100, connect_timeout_ms: 2000 }, { allowLegacyKeys: false })).toEqual([]);
    expect(checkScope('vapt', { ports: ['22', 8080, '9000-9010'] }, { allowLegacyKeys: false })).toEqual([]);
    expect(checkScope('vm', { ports: '22,abc' }, { allowLegacyKeys: false })).toEqual([
      { field: 'scope.ports', message: '"abc" is not a port or a range (a-b)' },
    ]);
    expect(checkScope('vm', { rate: 0 }, { allowLegacyKeys: false })).toEqual([{ field: 'scope.rate', message: expect.any(String) }]);
  });

  it('leave mode to the runner: a request that sets it is refused', () => {
    expect(checkScope('vapt', { mode: 'vm' }, { allowLegacyKeys: false })).toEqual([
      { field: 'scope.mode', message: 'is not a known field' },
    ]);
  });

  it("accept a migrated Continuous Network schedule's scope: the legacy ports text and the backfill's tags", () => {
    const migrated = { ports: '1-1024', source_legacy_model: 'network.continuousschedule', source_legacy_id: '2' };
    expect(checkScope('vm', migrated, { allowLegacyKeys: true })).toEqual([]);
  });

  it('fill the defaults in the engine’s scope file', () => {
    expect(NetscanScope.parse({ mode: 'vapt' })).toEqual({ ports: 'top100', rate: 200, connect_timeout_ms: 1500, mode: 'vapt' });
    expect(NetscanScope.parse({})).toMatchObject({ mode: 'vm' });
  });
});
