/** A page to ask a server-paged list for: its number, and the cursor leading to it if any. */
export interface PageRequest {
  page: number;
  cursor?: string;
}

/** What a cursor-paged list answered for the page on screen. */
export interface PagedAnswer {
  page: number;
  next_cursor: string | null;
  prev_cursor: string | null;
}

/**
 * The request for page `to`, seen from the page on screen. Its neighbours go by the answer's
 * cursors (a keyset seek: page 1,000 costs the server what page 2 does); a jump further, or a
 * move while the shown rows are still the previous page's placeholder, goes by number.
 */
export function pageRequest(
  shown: { page: number; answer: PagedAnswer | undefined; placeholder: boolean },
  to: number,
): PageRequest {
  const answer = shown.placeholder ? undefined : shown.answer;
  if (answer && answer.page === shown.page) {
    if (to === shown.page + 1 && answer.next_cursor)
      return { page: to, cursor: answer.next_cursor };
    if (to === shown.page - 1 && to > 1 && answer.prev_cursor)
      return { page: to, cursor: answer.prev_cursor };
  }
  return { page: to };
}
