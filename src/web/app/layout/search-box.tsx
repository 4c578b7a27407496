import { type FormEvent, useEffect, useRef } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { SEARCH_FORM, searchAddress } from '../../../shared/routes';
import { SearchIcon } from '../../components/icons';

/**
 * The navigation bar's search: a blank or whitespace keyword goes home (docs/product-rules.md).
 * Searching from a category page, or from a search in a category, searches in that category.
 */
export default function SearchBox() {
  const navigate = useNavigate();
  const { keyword: current, category: pageCategory } = useParams();
  const [query] = useSearchParams();
  const category = pageCategory ?? (current ? query.get('category') : null) ?? '';
  // The box keeps its own text (an uncontrolled input): what a shopper typed before the app took a
  // drawn page over stays in it, where React's state would have emptied it, and is what is searched.
  const box = useRef<HTMLInputElement>(null);
  const shown = useRef(current);
  // Follow the address: the box shows the current search, and empties when the shopper leaves it.
  useEffect(() => {
    if (shown.current === current) return;
    shown.current = current;
    if (box.current) box.current.value = current ?? '';
  }, [current]);

  function submit(event: FormEvent) {
    event.preventDefault();
    navigate(searchAddress(box.current?.value ?? '', category));
  }

  return (
    // Plain Bootstrap markup: react-bootstrap's Form brings every form part into the first download.
    // Before the app takes a drawn page over, the browser submits the form itself (SEARCH_FORM).
    // biome-ignore lint/a11y/useSemanticElements: <search> is too new for the phones the shop serves; the role says the same
    <form action={SEARCH_FORM.action} onSubmit={submit} className="d-flex flex-grow-1 me-lg-3 search-box" role="search">
      {category && <input type="hidden" name={SEARCH_FORM.category} value={category} />}
      <input
        type="search"
        name={SEARCH_FORM.keyword}
        ref={box}
        defaultValue={current ?? ''}
        placeholder="Search Product..."
        aria-label="Search the shop"
        className="form-control me-2"
        enterKeyHint="search"
      />
      <button type="submit" className="btn btn-outline-light" aria-label="Search">
        <SearchIcon />
      </button>
    </form>
  );
}
