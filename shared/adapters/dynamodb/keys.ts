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
  /** GSI3: the scans of one target (a digest of targetKey, as issues by target: targets can be 2 KB URLs). */
  scansByTarget: (tenant: string, targetDigest: string) => `T#${tenant}#SCAN#TGT#${targetDigest}`,
  finding: (id: string) => `FND#${id}`,
  findingsByScan: (tenant: string, scanId: string) => `T#${tenant}#FND#SCAN#${scanId}`,
  findingsByRule: (tenant: string, ruleId: string) => `T#${tenant}#FND#RULE#${ruleId}`,
  /** GSI3: the findings of one fingerprint (an issue's occurrences). */
  findingsByFingerprint: (tenant: string, fingerprint: string) => `T#${tenant}#FND#FP#${fingerprint}`,
};

/** Issues (see docs/issues.md): every GSI sort key is the issue's listing order (issueSortKey). */
export const issueKeys = {
  issue: (id: string) => `ISS#${id}`,
  /** GSI1: by stored status. */
  byStatus: (tenant: string, status: string) => `T#${tenant}#ISS#ST#${status}`,
  /** GSI2: by target (a digest of targetKey: targets can be 2 KB URLs). */
  byTarget: (tenant: string, targetDigest: string) => `T#${tenant}#ISS#TGT#${targetDigest}`,
  /** GSI3: by rule id. */
  byRule: (tenant: string, ruleId: string) => `T#${tenant}#ISS#R#${ruleId}`,
};

/** Uploaded files (see docs/artifacts.md). */
export const artifactKeys = {
  artifact: (id: string) => `ART#${id}`,
};

/** Notification rules (docs/notifications.md): ids are ULIDs, so SK order is age order. */
export const notificationKeys = {
  rule: (id: string) => `NTF#${id}`,
  prefix: 'NTF#',
};

/** Tenant credentials (docs/credentials.md): one item per alias, so SK order is alias order. */
export const credentialKeys = {
  credential: (alias: string) => `CRD#${alias}`,
  prefix: 'CRD#',
};

/** A tenant's settings (docs/digests-and-sla.md), one item each in the tenant's partition. */
export const settingsKeys = {
  sla: 'SET#sla',
};
