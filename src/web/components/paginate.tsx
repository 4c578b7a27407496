import { Link } from 'react-router';
import { pageWindow } from './page-window';

/**
 * Page links. `linkTo` builds each page's address, so the storefront and the admin list each
 * keep their own routes (the admin list must never send the admin to the storefront).
 */
export default function Paginate({ pages, page, linkTo }: { pages: number; page: number; linkTo: (page: number) => string }) {
  if (pages <= 1) return null;
  return (
    <nav aria-label="Pages" className="d-flex justify-content-center my-4">
      <ul className="pagination flex-wrap">
        {pageWindow(pages, page).map((n, i) =>
          n === 'gap' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: a gap has no identity of its own; its place does.
            <li key={`gap-${i}`} className="page-item disabled" aria-hidden="true">
              <span className="page-link">…</span>
            </li>
          ) : (
            <li key={n} className={`page-item${n === page ? ' active' : ''}`}>
              <Link className="page-link" to={linkTo(n)} aria-current={n === page ? 'page' : undefined} aria-label={`Page ${n}`}>
                {n}
              </Link>
            </li>
          ),
        )}
      </ul>
    </nav>
  );
}
