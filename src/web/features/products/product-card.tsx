import Badge from 'react-bootstrap/Badge';
import Card from 'react-bootstrap/Card';
import { Link } from 'react-router';
import { CARD_PHOTO_SIZES } from '../../../shared/photo-sizes';
import type { Product } from '../../../shared/schemas/products';
import { pricesDiffer } from '../../../shared/variant-names';
import { photoSources } from '../../components/photo-sources';
import Price from '../../components/price';
import Rating, { reviewCount } from '../../components/rating';
import { paths } from '../../config/paths';
import './products.css';

/** Product photos are stored square at this size; the attributes let the browser reserve the space. */
export const PHOTO_SIZE = 640;

export interface ProductCardProps {
  product: Product;
  /** Cards in the first screenful load their photo at once; the rest wait until scrolled near. */
  eager?: boolean;
  /** The first card's photo is the largest thing a phone shows first (its LCP): fetch it before the rest. */
  priority?: boolean;
}

/**
 * One product in the listing grid: photo, name, rating and price; compact on a phone, two to a row.
 * The name's link is stretched over the card, so any tap on it opens the product. */
export default function ProductCard({ product, eager = false, priority = false }: ProductCardProps) {
  const outOfStock = product.countInStock <= 0;
  return (
    <Card className="product-card h-100 position-relative">
      <img
        {...photoSources(product.image, CARD_PHOTO_SIZES)}
        alt={product.name}
        width={PHOTO_SIZE}
        height={PHOTO_SIZE}
        loading={eager || priority ? 'eager' : 'lazy'}
        fetchPriority={priority ? 'high' : undefined}
        decoding="async"
        className="product-photo product-card-photo card-img-top"
      />
      {/* Over the photo's corner: the same place on every card, whatever the name's length. */}
      {outOfStock && (
        <Badge bg="secondary" className="product-card-badge fw-semibold">
          Out of Stock
        </Badge>
      )}
      <Card.Body className="d-flex flex-column gap-1 gap-md-2 p-2 p-md-3">
        <Card.Title as="h2" className="h6 mb-0 product-card-name">
          <Link to={paths.product(product._id)} className="stretched-link text-reset text-decoration-none">
            {product.name}
          </Link>
        </Card.Title>
        <Rating value={product.rating} text={reviewCount(product.numReviews)} />
        <div className="mt-auto">
          {pricesDiffer(product) && <span className="small">{'from '}</span>}
          <Price value={product.price} className="fw-bold product-card-price" />
        </div>
      </Card.Body>
    </Card>
  );
}
