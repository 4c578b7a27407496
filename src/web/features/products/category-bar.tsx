import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { paths } from '../../config/paths';
import { useGetCategoriesQuery } from './api';

/**
 * The categories with their counts, and "All". On a phone one row of chips that scrolls sideways
 * on its own (the page never does); wider screens show them wrapped. The shown one is
 * aria-current. `query` (sort and price range) goes with every link, so a category keeps them.
 */
export default function CategoryBar({ current, query }: { current: string; query: string }) {
  const { data: categories } = useGetCategoriesQuery();
  const row = useRef<HTMLUListElement>(null);
  const shown = current.toLowerCase();
  const firstRun = useRef(true);
  // The shown category's chip in view in its row (a phone shows only the first few), without
  // scrolling the page itself. A row the visitor already scrolled when the app first runs (a page
  // the server drew, scrolled before the app took it over) stays where they left it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: it reads the chips from the DOM, which these two change
  useEffect(() => {
    const list = row.current;
    if (!list) return;
    const scrolledByVisitor = firstRun.current && list.scrollLeft > 0;
    firstRun.current = false;
    const chip = list.querySelector<HTMLElement>('[aria-current="page"]');
    if (chip && !scrolledByVisitor && list.scrollWidth > list.clientWidth) {
      list.scrollLeft = chip.offsetLeft - list.offsetLeft - (list.clientWidth - chip.offsetWidth) / 2;
    }
  }, [shown, categories]);
  if (!categories || categories.length === 0) return null;
  return (
    <nav aria-label="Categories" className="category-bar mb-2">
      <ul ref={row} className="category-chips list-unstyled mb-0">
        <li>
          <Link to={paths.home + query} className="category-chip" aria-current={shown ? undefined : 'page'}>
            All
          </Link>
        </li>
        {categories.map((category) => (
          <li key={category.name}>
            <Link
              to={paths.category(category.name) + query}
              className="category-chip"
              aria-current={category.name.toLowerCase() === shown ? 'page' : undefined}
            >
              {/* Read as "Lamps 14 products"; the hidden word keeps the visible text inside the name (WCAG 2.5.3). */}
              <span>{category.name}</span>
              <span className="category-count">
                {category.count}
                <span className="visually-hidden"> {category.count === 1 ? 'product' : 'products'}</span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
