/** A link to a page, or a gap standing for the pages left out between two links. */
export type PageItem = number | 'gap';

/** Links shown at most: the first, the last, the current one and two either side, and two gaps. */
const SLOTS = 9;

/**
 * Which page links to show: every page of a short list; for a long one (a shop of 100,000
 * products has over 8,000 pages) the first and last pages and those around the current one,
 * with a gap wherever two or more pages are left out. A link per page froze a phone's main
 * thread for over a second (Lighthouse's total blocking time at 100,000 products).
 */
export function pageWindow(pages: number, page: number): PageItem[] {
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  if (pages <= SLOTS) return range(1, pages);
  // Near either end one gap is enough, and the window widens to fill the slots.
  if (page <= SLOTS - 4) return [...range(1, SLOTS - 2), 'gap', pages];
  if (page >= pages - (SLOTS - 5)) return [1, 'gap', ...range(pages - (SLOTS - 3), pages)];
  return [1, 'gap', ...range(page - 2, page + 2), 'gap', pages];
}
