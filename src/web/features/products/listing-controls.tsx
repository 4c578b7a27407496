import { type FormEvent, useState } from 'react';
import { CATEGORY_MAX_LENGTH, PRODUCT_SORTS, type ProductSort } from '../../../shared/constants';
import type { ListingFilters } from '../../config/paths';

const SORT_LABELS: Record<ProductSort, string> = {
  newest: 'Newest',
  price_asc: 'Price: low to high',
  price_desc: 'Price: high to low',
  rating: 'Top rated',
};

/** The listing's filters as the address gives them; a value the API would refuse is left out. */
export function filtersFromQuery(query: URLSearchParams): ListingFilters {
  const sort = query.get('sort');
  const price = (name: string) => {
    const text = query.get(name)?.trim();
    if (!text || !/^\d+(\.\d{1,2})?$/.test(text)) return undefined;
    return Number(text);
  };
  let minPrice = price('minPrice');
  let maxPrice = price('maxPrice');
  if (minPrice !== undefined && maxPrice !== undefined && minPrice > maxPrice) [minPrice, maxPrice] = [maxPrice, minPrice];
  const category = query.get('category')?.trim();
  return {
    ...(category && category.length <= CATEGORY_MAX_LENGTH && { category }),
    ...(PRODUCT_SORTS.includes(sort as ProductSort) && { sort: sort as ProductSort }),
    ...(minPrice !== undefined && { minPrice }),
    ...(maxPrice !== undefined && { maxPrice }),
  };
}

/** "Ksh 300–700", "from Ksh 300", "up to Ksh 700": the price range in words. */
export function priceRangeLabel({ minPrice, maxPrice }: ListingFilters): string | undefined {
  const ksh = (n: number) => `Ksh ${n.toLocaleString('en')}`;
  if (minPrice !== undefined && maxPrice !== undefined) return `${ksh(minPrice)}–${maxPrice.toLocaleString('en')}`;
  if (minPrice !== undefined) return `from ${ksh(minPrice)}`;
  if (maxPrice !== undefined) return `up to ${ksh(maxPrice)}`;
  return undefined;
}

/**
 * Sort and price range. The sort applies when chosen; the price range with Apply. A search's
 * default order is its best matches, a listing's the newest. `onChange` gets the new filters.
 */
export default function ListingControls({
  filters,
  searching,
  onChange,
}: {
  filters: ListingFilters;
  searching: boolean;
  onChange: (filters: ListingFilters) => void;
}) {
  const [min, setMin] = useState(filters.minPrice?.toString() ?? '');
  const [max, setMax] = useState(filters.maxPrice?.toString() ?? '');
  const [problem, setProblem] = useState('');

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const read = (text: string) => (text.trim() === '' ? undefined : Number(text));
    const [minPrice, maxPrice] = [read(min), read(max)];
    if ([minPrice, maxPrice].some((n) => n !== undefined && !(Number.isFinite(n) && n >= 0))) {
      setProblem('Enter prices as positive numbers');
      return;
    }
    if (minPrice !== undefined && maxPrice !== undefined && minPrice > maxPrice) {
      setProblem('The minimum is more than the maximum');
      return;
    }
    setProblem('');
    onChange({ sort: filters.sort, minPrice, maxPrice });
  };

  const defaultSort: ProductSort | '' = searching ? '' : 'newest';
  return (
    <form className="listing-controls" onSubmit={apply} aria-label="Sort and filter">
      <div className="listing-sort">
        <label htmlFor="listing-sort" className="visually-hidden">
          Sort by
        </label>
        <select
          id="listing-sort"
          className="form-select"
          value={filters.sort ?? defaultSort}
          onChange={(event) => {
            const sort = event.target.value as ProductSort | '';
            onChange({ ...filters, sort: sort === '' || (sort === 'newest' && !searching) ? undefined : sort });
          }}
        >
          {searching && <option value="">Best match</option>}
          {PRODUCT_SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="listing-price">
        <legend className="visually-hidden">Price range (Ksh)</legend>
        <input
          type="number"
          inputMode="decimal"
          min={0}
          step="any"
          className="form-control"
          placeholder="Min Ksh"
          aria-label="Minimum price (Ksh)"
          value={min}
          onChange={(event) => setMin(event.target.value)}
        />
        <input
          type="number"
          inputMode="decimal"
          min={0}
          step="any"
          className="form-control"
          placeholder="Max Ksh"
          aria-label="Maximum price (Ksh)"
          value={max}
          onChange={(event) => setMax(event.target.value)}
        />
        <button type="submit" className="btn btn-success">
          Apply
        </button>
      </fieldset>
      {problem && (
        <p className="listing-problem text-danger small mb-0" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
