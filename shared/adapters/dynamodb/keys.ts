/** Key layout of the single table (see table-definition.ts). Every partition key starts with the tenant. */
export const keys = {
  tenant: (tenant: string) => `T#${tenant}`,
  schedule: (id: string) => `SCH#${id}`,
  scheduleCounter: 'META#schedule-count',
  schedulesByType: (tenant: string, scanType: string) => `T#${tenant}#SCH#TYPE#${scanType}`,
  schedulesByEnabled: (tenant: string, enabled: boolean) => `T#${tenant}#SCH#EN#${enabled}`,
};
