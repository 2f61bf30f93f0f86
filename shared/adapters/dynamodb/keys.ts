/** Key layout of the single table (see table-definition.ts). Every partition key starts with the tenant. */
export const keys = {
  tenant: (tenant: string) => `T#${tenant}`,
  schedule: (id: string) => `SCH#${id}`,
  /** Concurrent creates of one tenant serialise on it (dynamodb-schedule-repository.ts); the quota counts rows. */
  scheduleCreateGate: 'META#schedule-create',
  schedulesByType: (tenant: string, scanType: string) => `T#${tenant}#SCH#TYPE#${scanType}`,
  schedulesByEnabled: (tenant: string, enabled: boolean) => `T#${tenant}#SCH#EN#${enabled}`,
  /** The backfill's marker of one legacy row (docs/backfill.md). */
  legacyMarker: (model: string, legacyId: string) => `LEGACY#${model}#${legacyId}`,
  legacyMarkerPrefix: 'LEGACY#',
};

/** Scans and findings (see docs/storage.md). */
export const scanKeys = {
  scan: (id: string) => `SCAN#${id}`,
  scansByType: (tenant: string, scanType: string) => `T#${tenant}#SCAN#TYPE#${scanType}`,
  scansBySchedule: (tenant: string, scheduleId: string) => `T#${tenant}#SCAN#SCH#${scheduleId}`,
  finding: (id: string) => `FND#${id}`,
  findingsByScan: (tenant: string, scanId: string) => `T#${tenant}#FND#SCAN#${scanId}`,
  findingsByRule: (tenant: string, ruleId: string) => `T#${tenant}#FND#RULE#${ruleId}`,
  /** The first-seen item of one target: one attribute per fingerprint ever seen on it. */
  firstSeen: (targetHash: string) => `SEEN#${targetHash}`,
};

/** Uploaded files (see docs/artifacts.md). */
export const artifactKeys = {
  artifact: (id: string) => `ART#${id}`,
};
