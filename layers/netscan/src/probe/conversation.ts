/**
 * How a probe talks to a port: one connection per Conversation, each read bounded in time and
 * bytes by the driver (service-probe.ts). A probe sees only parsed answers or null, so every
 * protocol step stays a pure function over bytes.
 */
export type Parse<T> = (bytes: Buffer, closed: boolean) => T | null | 'more';

export interface Conversation {
  /**
   * Sends `request` (when given), then reads until `parse` returns a value or null. Null too when
   * the service closes, stays silent past the wait, or sends more than the byte cap before
   * `parse` decides; `silent`, `closed` and `flooded` then say which.
   */
  ask<T>(request: Buffer | string | null, parse: Parse<T>, waitMs?: number): Promise<T | null>;
  /** Every byte received on this connection so far (for the banner of an unrecognised service). */
  readonly received: Buffer;
  readonly silent: boolean;
  readonly closed: boolean;
  readonly flooded: boolean;
  /** An answer began and did not end: the wait ran out, or the service closed, in the middle of it. */
  readonly cutShort: boolean;
  close(): void;
}

/** The port speaks TLS but ended the handshake with an alert (no protocol or suite in common). */
export interface TlsAlert {
  alert: string;
}

/** Opens conversations with one open port: in the clear, or inside TLS (null when the port does not speak TLS). */
export interface Dialer {
  plain(): Promise<Conversation>;
  tls(): Promise<Conversation | TlsAlert | null>;
}
