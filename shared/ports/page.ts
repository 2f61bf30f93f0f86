/** One page of a tenant's listing, newest first. */
export interface Page<T> {
  items: T[];
  /** Opaque; bound to the tenant that listed it. */
  nextCursor: string | null;
}
