import type { Page } from '../../shared/ports/page.ts';

/** A listing as the contract suites walk it: `list(tenant, filter, limit, cursor)` of any repository port. */
type Listing<F> = (tenant: string, filter: F, limit: number, cursor?: string) => Promise<Page<{ id: string }>>;

/**
 * Follows a listing's cursors to the end, keeping each page's ids and the cursor it handed out.
 * `maxPages` stops a listing that never ends, so that bug fails an assertion instead of hanging.
 */
export async function walkPages<F>(
  list: Listing<F>,
  tenant: string,
  filter: F,
  limit: number,
  maxPages: number,
): Promise<{ pages: string[][]; cursors: (string | null)[] }> {
  const pages: string[][] = [];
  const cursors: (string | null)[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(tenant, filter, limit, cursor);
    pages.push(page.items.map((item) => item.id));
    cursors.push(page.nextCursor);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length < maxPages);
  return { pages, cursors };
}
