/** Bounds on the message the header surface reads (DESIGN §6: header count and line length). */
export const HEADER_LIMITS = {
  /** The artifact API's ceiling for purpose eml (DESIGN §4). */
  maxMessageBytes: 50 * 1024 * 1024,
  maxHeaderSectionBytes: 1024 * 1024,
  maxHeaderFields: 1_000,
  /** One header field, folded lines included; RFC 5322 lines are ≤ 998 but signatures fold long. */
  maxFieldBytes: 64 * 1024,
  maxDkimSignatures: 20,
  maxArcSets: 50,
  maxReceived: 100,
  /** Received timestamps this much earlier than the hop before still count as clock skew, not backwards. */
  clockSkewMs: 60_000,
  /** A hop more than this after the previous one is an anomaly. */
  maxHopDelayMs: 24 * 60 * 60 * 1000,
} as const;

export type HeaderLimits = typeof HEADER_LIMITS;

export class HeaderInputError extends Error {}
