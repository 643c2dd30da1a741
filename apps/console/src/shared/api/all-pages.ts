/** One page of a list route: its items and the token of the next page, if any. */
interface Page<T> {
  items: T[];
  metadata: { continue?: string };
}

/** The `query` and `signal` of a list call for the page after `next` (1,000 items a page). */
export function pageRequest(next: string | undefined, signal?: AbortSignal) {
  return {
    query: { limit: 1000, ...(next ? { continue: next } : {}) },
    ...(signal ? { signal } : {}),
  };
}

/** Every item of a paginated list: `page(next)` fetches one page, until none follows. */
export async function allPages<T>(page: (next: string | undefined) => Promise<Page<T>>) {
  const items: T[] = [];
  let next: string | undefined;
  do {
    const current = await page(next);
    items.push(...current.items);
    next = current.metadata.continue;
  } while (next);
  return items;
}
