import { describe, expect, it } from 'vitest';
import { pageWindow } from './page-window';

describe('pageWindow', () => {
  it('lists every page of a short list', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(4, 2)).toEqual([1, 2, 3, 4]);
    expect(pageWindow(9, 5)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('keeps the first, the last and the pages around the current one of a long list', () => {
    expect(pageWindow(8334, 1)).toEqual([1, 2, 3, 4, 5, 6, 7, 'gap', 8334]);
    expect(pageWindow(8334, 500)).toEqual([1, 'gap', 498, 499, 500, 501, 502, 'gap', 8334]);
    expect(pageWindow(8334, 8334)).toEqual([1, 'gap', 8328, 8329, 8330, 8331, 8332, 8333, 8334]);
    expect(pageWindow(10, 5)).toEqual([1, 2, 3, 4, 5, 6, 7, 'gap', 10]);
  });

  it('always shows the current page, never a page twice, in order, and at most 9 items', () => {
    for (const pages of [10, 11, 12, 50, 8334]) {
      for (let page = 1; page <= pages; page += pages > 100 ? 97 : 1) {
        const items = pageWindow(pages, page);
        const numbers = items.filter((i): i is number => i !== 'gap');
        expect(numbers).toContain(page);
        expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
        expect(new Set(numbers).size).toBe(numbers.length);
        expect(numbers[0]).toBe(1);
        expect(numbers.at(-1)).toBe(pages);
        expect(items.length).toBeLessThanOrEqual(9);
        // A gap only where pages are really left out.
        items.forEach((item, i) => {
          if (item !== 'gap') return;
          const before = items[i - 1] as number;
          const after = items[i + 1] as number;
          expect(after - before).toBeGreaterThan(1);
        });
      }
    }
  });
});
