import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import type { ProductPage } from '../../../shared/schemas/products';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import Paginate from '../../components/paginate';
import { type ListingFilters, listingQuery, paths } from '../../config/paths';
import { pageFrom } from '../../hooks/use-list-search';
import { errorMessage } from '../../lib/errors';
import { useGetCategoriesQuery, useGetProductsQuery } from './api';
import CategoryBar from './category-bar';
import ListingControls, { filtersFromQuery, priceRangeLabel } from './listing-controls';
import ProductCard from './product-card';
import ProductCarousel from './product-carousel';

/** How many cards load their photo at once: the first row on a desktop. */
const EAGER_CARDS = 4;

/** "1 product", "24 products"; past the search's cap "1,000+ products", since more match than were counted. */
export function productsLabel(count: number, capped = false): string {
  if (capped) return `${count.toLocaleString('en')}+ products`;
  return count === 1 ? '1 product' : `${count.toLocaleString('en')} products`;
}

/** The page's title: the search, the category or the page; the home page keeps the shop's own. */
function listingTitle(keyword: string, category: string, pageNumber: number): string | undefined {
  if (keyword) return `Search: ${keyword}`;
  if (category) return pageNumber > 1 ? `${category}, page ${pageNumber}` : category;
  return pageNumber > 1 ? `Latest Products, page ${pageNumber}` : undefined;
}

/** What the list shows: the search and any word it was corrected to, the category, the price range and how many. */
function ListingSummary(props: {
  data: ProductPage;
  keyword: string;
  category: string;
  range: string | undefined;
  everywhere: string;
}) {
  const { data, keyword, category, range } = props;
  return (
    <p className="text-body-secondary mb-1" aria-live="polite">
      {keyword
        ? data.closeTo
          ? `Nothing matches “${keyword}”. Results for “${data.closeTo.map((words) => words.join('/')).join(' ')}”: `
          : `Results for “${keyword}”: `
        : ''}
      {[category || undefined, range, productsLabel(data.count, data.countCapped)].filter(Boolean).join(' · ')}
      {keyword && category && (
        <>
          {' '}
          <Link to={props.everywhere}>Search all categories</Link>
        </>
      )}
    </p>
  );
}

/** Two compact cards a row on a phone, then 2, 3 and 4 at md, lg and xl (docs/product-rules.md). */
function ProductGrid({ products }: { products: ProductPage['products'] }) {
  return (
    <Row className="g-2 g-md-3 g-lg-4 mt-0">
      {products.map((product, index) => (
        <Col key={product._id} xs={6} md={6} lg={4} xl={3}>
          <ProductCard product={product} eager={index < EAGER_CARDS} priority={index === 0} />
        </Col>
      ))}
    </Row>
  );
}

/**
 * The product listing at /, /page/:n, /search/:keyword, /search/:keyword/page/:n,
 * /category/:category and /category/:category/page/:n (docs/product-rules.md), each with the sort
 * and price range of its query string. The plain home page (no keyword, category or filter) is
 * the specification's 'Latest Products' with the top-products carousel.
 */
export default function HomeScreen() {
  const params = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  // 1 when absent or not a whole number from 1 (docs/product-rules.md).
  const pageNumber = pageFrom(params.pageNumber);
  const keyword = params.keyword?.trim() ?? '';
  const { category: searchCategory = '', ...filters } = filtersFromQuery(new URLSearchParams(location.search));
  // A category page names its category in its path; a search started there keeps it as ?category=.
  const category = keyword ? searchCategory : (params.category?.trim() ?? '');
  const query = listingQuery(filters);
  const filtered = query !== '';
  const { data: categories } = useGetCategoriesQuery();
  // The name as the shop spells it (the address may differ in case).
  const categoryName = categories?.find((c) => c.name.toLowerCase() === category.toLowerCase())?.name ?? category;

  /** The address of page n of this list, with its filters (a search keeps its category). */
  const pageLink = (n: number, pageFilters: ListingFilters = filters) =>
    keyword
      ? paths.search(keyword, n) + listingQuery({ ...(category && { category: categoryName }), ...pageFilters })
      : (category ? paths.category(categoryName, n) : paths.page(n)) + listingQuery(pageFilters);
  /** A search in a category, widened to every category. */
  const everywhere = paths.search(keyword) + query;

  // currentData is only this page's result: while another page loads, the spinner shows instead of the old page.
  // Filters not given stay out of the argument (see api.ts).
  const {
    currentData: data,
    isFetching,
    error,
  } = useGetProductsQuery({
    pageNumber,
    keyword,
    ...(category && { category }),
    ...filters,
  });

  const range = priceRangeLabel(filters);

  return (
    <>
      <PageTitle title={listingTitle(keyword, category ? categoryName : '', pageNumber)} />
      {keyword ? (
        <Link to={paths.home} className="btn btn-light mb-3">
          Go Back
        </Link>
      ) : (
        !category && !filtered && <ProductCarousel />
      )}

      <CategoryBar current={category} query={query} />

      <h1 className="h3 mb-1">Latest Products</h1>
      {data && (keyword || category || range) && (
        <ListingSummary
          data={data}
          keyword={keyword}
          category={category ? categoryName : ''}
          range={range}
          everywhere={everywhere}
        />
      )}
      <ListingControls
        key={location.search}
        filters={filters}
        searching={keyword !== ''}
        onChange={(next) => navigate(pageLink(1, next))}
      />

      {error && !isFetching ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !data ? (
        <Loader label="Loading products…" />
      ) : data.products.length === 0 ? (
        <div className="mt-3">
          <EmptyListing
            keyword={keyword}
            category={category ? categoryName : ''}
            everywhere={everywhere}
            filtered={filtered}
            firstPage={pageLink(1)}
            unfiltered={pageLink(1, {})}
            beyondLastPage={data.count > 0}
          />
        </div>
      ) : (
        <>
          <ProductGrid products={data.products} />
          <Paginate pages={data.pages} page={data.page} linkTo={(n) => pageLink(n)} />
        </>
      )}
    </>
  );
}

/** Nothing to show: no match for a search or the filters, a page past the last one, or a shop with no products yet. */
function EmptyListing(props: {
  keyword: string;
  category: string;
  /** The same search in every category. */
  everywhere: string;
  filtered: boolean;
  firstPage: string;
  unfiltered: string;
  beyondLastPage: boolean;
}) {
  const { keyword, category, everywhere, filtered, firstPage, unfiltered, beyondLastPage } = props;
  if (beyondLastPage) {
    return (
      <Message>
        This page is empty.{' '}
        <Link to={firstPage} className="alert-link">
          Go to the first page
        </Link>
      </Message>
    );
  }
  if (filtered) {
    return (
      <Message>
        <p className="fw-semibold mb-1">No products match these filters.</p>
        <p className="mb-0">
          Try another price range.{' '}
          <Link to={unfiltered} className="alert-link">
            Clear filters
          </Link>
        </p>
      </Message>
    );
  }
  if (keyword && category) {
    return (
      <Message>
        <p className="fw-semibold mb-1">
          No products in “{category}” match “{keyword}”.
        </p>
        <p className="mb-0">
          <Link to={everywhere} className="alert-link">
            Search every category
          </Link>
        </p>
      </Message>
    );
  }
  if (keyword) {
    return (
      <Message>
        <p className="fw-semibold mb-1">No products match “{keyword}”.</p>
        <p className="mb-0">
          Check the spelling or try a shorter word, such as a brand or a category.{' '}
          <Link to={paths.home} className="alert-link">
            See all products
          </Link>
        </p>
      </Message>
    );
  }
  if (category) {
    return (
      <Message>
        <p className="fw-semibold mb-1">There are no products in “{category}”.</p>
        <p className="mb-0">
          <Link to={paths.home} className="alert-link">
            See all products
          </Link>
        </p>
      </Message>
    );
  }
  return <Message>There are no products yet. Please check back soon.</Message>;
}
