import Carousel from 'react-bootstrap/Carousel';
import { Link } from 'react-router';
import { SLIDE_PHOTO_SIZES } from '../../../shared/photo-sizes';
import { photoSources } from '../../components/photo-sources';
import Price from '../../components/price';
import Rating from '../../components/rating';
import { paths } from '../../config/paths';
import { REDUCED_MOTION, useMediaQuery } from '../../hooks/use-media-query';
import { useGetTopProductsQuery } from './api';
import { PHOTO_SIZE } from './product-card';
import './products.css';

/**
 * The top-rated products, one slide each, linking to the product. A failure shows nothing
 * (docs/product-rules.md: the top products fail silently); the listing below still works.
 */
export default function ProductCarousel() {
  const { data: products, isLoading } = useGetTopProductsQuery();
  // A visitor who asks for less motion turns the slides herself: slides that change by themselves
  // are motion she did not start, and they keep a phone drawing.
  const stillSlides = useMediaQuery(REDUCED_MOTION);
  // While the slides load, their space is kept, so the listing below does not jump down when they come.
  if (isLoading) return <div className="top-carousel top-slide rounded-3 shadow-sm mb-4" aria-hidden="true" />;
  if (!products || products.length === 0) return null;

  return (
    <section aria-labelledby="top-products-heading" className="mb-4">
      <h2 id="top-products-heading" className="visually-hidden">
        Top rated products
      </h2>
      <Carousel className="top-carousel rounded-3 overflow-hidden shadow-sm" interval={stillSlides ? null : 6000} pause="hover">
        {products.map((product, index) => (
          <Carousel.Item key={product._id}>
            <Link
              to={paths.product(product._id)}
              className="top-slide d-flex align-items-center justify-content-center gap-3 gap-md-5 text-white text-decoration-none"
            >
              <img
                {...photoSources(product.image, SLIDE_PHOTO_SIZES, 320)}
                alt={product.name}
                width={PHOTO_SIZE}
                height={PHOTO_SIZE}
                // Only the first slide is seen at once; the others can wait.
                loading={index === 0 ? 'eager' : 'lazy'}
                fetchPriority={index === 0 ? 'high' : 'auto'}
                decoding="async"
                className="top-slide-photo"
              />
              <div className="text-start" style={{ minWidth: 0 }}>
                <p className="small text-uppercase text-white-50 mb-1 fw-semibold">Top rated</p>
                <p className="fw-medium mb-2 top-slide-name">{product.name}</p>
                <Price value={product.price} className="top-slide-price d-block fw-bold mb-2" />
                <Rating value={product.rating} />
              </div>
            </Link>
          </Carousel.Item>
        ))}
      </Carousel>
    </section>
  );
}
