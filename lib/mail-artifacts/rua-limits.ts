/**
 * Bounds on every aggregate-report file (DESIGN §6 "Every input file is bounded"). A file over any
 * of them is refused with an error entry naming the bound; nothing is decompressed past it.
 */
export const RUA_LIMITS = {
  /** The artifact API's ceiling for purpose rua (DESIGN §4). */
  maxFileBytes: 25 * 1024 * 1024,
  /** Decompressed bytes of one file, all archive entries together. */
  maxDecompressedBytes: 64 * 1024 * 1024,
  /** Decompressed/compressed, checked once the output passes `ratioCheckFromBytes`. */
  maxCompressionRatio: 200,
  ratioCheckFromBytes: 4 * 1024 * 1024,
  maxArchiveEntries: 16,
  /** Element nesting; a report needs 5. */
  maxXmlDepth: 32,
  /** Records in one report (a busy reporter's day is ~10^4). */
  maxRecordsPerReport: 200_000,
  /** Distinct header_from values and reporters kept per rollup row. */
  maxListValues: 20,
} as const;

export type RuaLimits = typeof RUA_LIMITS;

/** A file refused or skipped for a reason the report states; never a crash. */
export class RuaInputError extends Error {}
