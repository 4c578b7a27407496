import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { Link, useParams } from 'react-router';
import { paths } from '../../app/paths';
import Loader from '../../components/Loader';
import Message from '../../components/Message';
import PageTitle from '../../components/PageTitle';
import Paginate from '../../components/Paginate';
import { errorMessage } from '../../lib/errors';
import { useGetProductsQuery } from './api';
import ProductCard from './ProductCard';
import ProductCarousel from './ProductCarousel';

/** How many cards load their photo at once: the first row on a desktop. */
const EAGER_CARDS = 4;

/** The page number of the route, 1 when absent or not a whole number from 1 (docs/product-rules.md). */
export function pageFromParam(value: string | undefined): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** "1 product", "24 products"; past the search's cap "1,000+ products", since more match than were counted. */
export function productsLabel(count: number, capped = false): string {
  if (capped) return `${count.toLocaleString('en')}+ products`;
  return count === 1 ? '1 product' : `${count.toLocaleString('en')} products`;
}

/** The product listing at /, /page/:n, /search/:keyword and /search/:keyword/page/:n (docs/product-rules.md). */
export default function HomeScreen() {
  const params = useParams();
  const pageNumber = pageFromParam(params.pageNumber);
  const keyword = params.keyword?.trim() ?? '';

  // currentData is only this page's result: while another page loads, the spinner shows instead of the old page.
  const { currentData: data, isFetching, error } = useGetProductsQuery({ pageNumber, keyword });

  const title = keyword ? `Search: ${keyword}` : pageNumber > 1 ? `Latest Products, page ${pageNumber}` : undefined;

  return (
    <>
      <PageTitle title={title} />
      {keyword ? (
        <Link to={paths.home} className="btn btn-light mb-3">
          Go Back
        </Link>
      ) : (
        <ProductCarousel />
      )}

      <h1 className="h3 mb-1">Latest Products</h1>
      {keyword && data && (
        <p className="text-body-secondary mb-1" aria-live="polite">
          Results for “{keyword}”: {productsLabel(data.count, data.countCapped)}
        </p>
      )}

      {error && !isFetching ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !data ? (
        <Loader label="Loading products…" />
      ) : data.products.length === 0 ? (
        <div className="mt-3">
          <EmptyListing keyword={keyword} beyondLastPage={data.count > 0} />
        </div>
      ) : (
        <>
          {/* Two compact cards a row on a phone, then 2, 3 and 4 at md, lg and xl (docs/product-rules.md). */}
          <Row className="g-2 g-md-3 g-lg-4 mt-0">
            {data.products.map((product, index) => (
              <Col key={product._id} xs={6} md={6} lg={4} xl={3}>
                <ProductCard product={product} eager={index < EAGER_CARDS} priority={index === 0} />
              </Col>
            ))}
          </Row>
          <Paginate pages={data.pages} page={data.page} linkTo={(n) => (keyword ? paths.search(keyword, n) : paths.page(n))} />
        </>
      )}
    </>
  );
}

/** Nothing to show: a search without matches, a page past the last one, or a shop with no products yet. */
function EmptyListing({ keyword, beyondLastPage }: { keyword: string; beyondLastPage: boolean }) {
  if (beyondLastPage) {
    return (
      <Message>
        This page is empty.{' '}
        <Link to={keyword ? paths.search(keyword) : paths.home} className="alert-link">
          Go to the first page
        </Link>
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
  return <Message>There are no products yet. Please check back soon.</Message>;
}
