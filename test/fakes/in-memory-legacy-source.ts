import type { LegacySchedule } from '../../shared/domain/legacy/legacy-schedule.ts';
import type { LegacyScheduleSource, LegacyTenant } from '../../shared/ports/legacy-schedule-source.ts';

/** Legacy tenants and schedules in memory; `failNextDisable` makes the next task update throw. */
export class InMemoryLegacySource implements LegacyScheduleSource {
  readonly tenants = new Map<string, { schedules: LegacySchedule[]; cloud: number }>();
  /** Every task update that changed something, in order. */
  readonly changes: { tenant: string; taskId: number; enabled: boolean }[] = [];
  failNextDisable: Error | null = null;

  add(tenant: string, schedules: LegacySchedule[], cloud = 0): this {
    this.tenants.set(tenant, { schedules, cloud });
    return this;
  }

  async listTenants(): Promise<LegacyTenant[]> {
    return [...this.tenants.keys()].sort().map((schema) => ({ schema, name: schema }));
  }

  async listSchedules(tenant: string): Promise<LegacySchedule[]> {
    return structuredClone(this.tenants.get(tenant)?.schedules ?? []);
  }

  async countCloudMonitoringSchedules(tenant: string): Promise<number> {
    return this.tenants.get(tenant)?.cloud ?? 0;
  }

  async setTaskEnabled(tenant: string, taskId: number, enabled: boolean): Promise<boolean> {
    const failure = this.failNextDisable;
    this.failNextDisable = null;
    if (failure) throw failure;
    let changed = false;
    for (const row of this.tenants.get(tenant)?.schedules ?? []) {
      if (row.task?.id === taskId && row.task.enabled !== enabled) {
        row.task.enabled = enabled;
        changed = true;
      }
    }
    if (changed) this.changes.push({ tenant, taskId, enabled });
    return changed;
  }

  taskEnabled(tenant: string, taskId: number): boolean | undefined {
    return this.tenants.get(tenant)?.schedules.find((row) => row.task?.id === taskId)?.task?.enabled;
  }
}
