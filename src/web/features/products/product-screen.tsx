import { skipToken } from '@reduxjs/toolkit/query/react';
import { type ReactNode, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { Link, useNavigate, useParams } from 'react-router';
import { MAX_LINE_QTY } from '../../../shared/constants';
import { DETAIL_PHOTO_SIZES } from '../../../shared/photo-sizes';
import type { ProductDetail } from '../../../shared/schemas/products';
import { describeVariant, pricesDiffer } from '../../../shared/variant-names';
import { CartIcon } from '../../components/icons';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { photoSources } from '../../components/photo-sources';
import Price from '../../components/price';
import Rating, { reviewCount } from '../../components/rating';
import { paths } from '../../config/paths';
import { MD_AND_UP, useMediaQuery } from '../../hooks/use-media-query';
import { errorMessage } from '../../lib/errors';
import { addToCart } from '../../stores/cart-slice';
import { useAppDispatch } from '../../stores/store';
import { useGetProductDetailsQuery } from './api';
import { PHOTO_SIZE } from './product-card';
import ReviewForm from './review-form';
import ReviewList from './review-list';
import VariantPicker, { useVariantChoice } from './variant-picker';
import './products.css';
import '../../styles/list-group.scss';

/** The quantities a shopper may pick: 1 to the stock count (docs/product-rules.md), never more than one order line allows. */
export function qtyChoices(countInStock: number): number[] {
  const most = Math.min(Math.max(0, Math.floor(countInStock)), MAX_LINE_QTY);
  return Array.from({ length: most }, (_, i) => i + 1);
}

/** An unknown id (404) or a malformed one (400): the product does not exist. */
function isMissing(error: unknown): boolean {
  const status = (error as { status?: unknown } | undefined)?.status;
  return status === 404 || status === 400;
}

/** One product: photo, details, the buy box, and its reviews (docs/product-rules.md). */
export default function ProductScreen() {
  const { id } = useParams();
  const { currentData: product, isFetching, error } = useGetProductDetailsQuery(id ?? skipToken);

  return (
    <>
      <Link to={paths.home} className="btn btn-light mb-3">
        Go Back
      </Link>
      {product ? (
        <ProductDetails product={product} />
      ) : error && !isFetching ? (
        isMissing(error) ? (
          <>
            <PageTitle title="Product not found" />
            <Message variant="warning">
              <p className="fw-semibold mb-1">Product not found</p>
              <p className="mb-0">
                This product does not exist or is no longer sold.{' '}
                <Link to={paths.home} className="alert-link">
                  See all products
                </Link>
              </p>
            </Message>
          </>
        ) : (
          <Message variant="danger">{errorMessage(error)}</Message>
        )
      ) : (
        <Loader label="Loading the product…" />
      )}
    </>
  );
}

/** The quantity to add, 1 to the stock count; the label is the caller's (visible in the box, hidden in the bar). */
function QtySelect({
  qty,
  choices,
  wide,
  onChange,
}: {
  qty: number;
  choices: number[];
  wide: boolean;
  onChange: (qty: number) => void;
}) {
  return (
    <select
      id="product-qty"
      className="form-select"
      value={qty}
      onChange={(e) => onChange(Number(e.target.value))}
      style={wide ? { maxWidth: '7rem' } : undefined}
    >
      {choices.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
    </select>
  );
}

function AddToCartButton(props: { wide: boolean; inStock: boolean; reason: string | undefined; onClick: () => void }) {
  const { wide, inStock, reason } = props;
  return (
    <Button
      type="button"
      variant="dark"
      className={`d-inline-flex align-items-center justify-content-center gap-2 ${wide ? 'w-100' : 'text-nowrap'}`}
      disabled={!inStock || reason !== undefined}
      aria-describedby={reason ? 'add-to-cart-reason' : undefined}
      onClick={props.onClick}
    >
      {/* The phone's bar has no room to spare for the icon. */}
      {wide && <CartIcon />} Add To Cart
    </Button>
  );
}

/** Why Add To Cart waits: the option still to choose. */
function AddReason({ reason }: { reason: string | undefined }) {
  if (!reason) return null;
  return (
    <small id="add-to-cart-reason" className="d-block text-body-secondary">
      {reason}
    </small>
  );
}

/** The price shown: the chosen variant's, else the product's, "from" when its variants' prices differ. */
function ShownPrice({ price, from, className }: { price: number; from: boolean; className: string }) {
  return (
    <span className={className}>
      {from && <span className="fw-normal fs-6">{'from '}</span>}
      <Price value={price} />
    </span>
  );
}

/** The buy box beside the details: price and stock, and from md up the quantity and Add To Cart. */
function BuyBox(props: { price: ReactNode; inStock: boolean; wide: boolean; qtySelect: ReactNode; addButton: ReactNode }) {
  const { inStock, wide } = props;
  return (
    <Card className="shadow-sm">
      {/* Bootstrap's list group and select as markup: react-bootstrap's ListGroup and Form bring seven files to a first screen. */}
      <div className="list-group list-group-flush">
        <div className="list-group-item d-flex justify-content-between gap-2">
          <span>Price:</span>
          {props.price}
        </div>
        <div className="list-group-item d-flex justify-content-between gap-2">
          <span>Status:</span>
          <strong className={inStock ? 'text-success' : 'text-danger'}>{inStock ? 'In Stock' : 'Out of Stock'}</strong>
        </div>
        {wide && inStock && (
          <div className="list-group-item">
            <div className="d-flex align-items-center justify-content-between gap-2">
              <label htmlFor="product-qty" className="form-label mb-0">
                Qty
              </label>
              {props.qtySelect}
            </div>
          </div>
        )}
        {wide && <div className="list-group-item">{props.addButton}</div>}
      </div>
    </Card>
  );
}

/** The photo, the name, category, rating, price and description, and the buy box. */
function ProductSummary(props: {
  product: ProductDetail;
  image: string;
  price: ReactNode;
  picker: ReactNode;
  buyBox: ReactNode;
}) {
  const { product } = props;
  return (
    <Row className="g-4">
      <Col md={5}>
        <img
          {...photoSources(props.image, DETAIL_PHOTO_SIZES)}
          alt={product.name}
          width={PHOTO_SIZE}
          height={PHOTO_SIZE}
          fetchPriority="high"
          className="product-photo product-detail-photo rounded-3"
        />
      </Col>
      <Col md={7}>
        <Row className="g-4">
          <Col lg={7}>
            <h1 className="h3">{product.name}</h1>
            <p className="small text-body-secondary mb-2">{product.category}</p>
            <Rating value={product.rating} text={reviewCount(product.numReviews)} />
            <div className="my-3">{props.price}</div>
            {props.picker}
            <p style={{ whiteSpace: 'pre-line' }}>{product.description}</p>
          </Col>
          <Col lg={5}>{props.buyBox}</Col>
        </Row>
      </Col>
    </Row>
  );
}

function ProductDetails({ product }: { product: ProductDetail }) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  // On a phone the quantity and Add To Cart leave the buy box for a bar at the thumb, always in reach.
  const wide = useMediaQuery(MD_AND_UP);
  const [chosenQty, setChosenQty] = useState(1);
  // A product sold in variants: price, stock and photo follow the choice.
  const choice = useVariantChoice(product);
  const variant = choice?.variant;
  const choices = qtyChoices(variant ? variant.countInStock : product.countInStock);
  const inStock = choices.length > 0;
  const reason = choice?.missing && inStock ? `Choose a ${choice.missing}` : undefined;
  // The stock may have dropped since the choice was made (the product reloads after reviews, for instance).
  const qty = Math.min(chosenQty, Math.max(1, choices.length));
  const image = variant?.image ?? product.image;
  const from = !variant && pricesDiffer(product);
  const price = (className: string) => <ShownPrice price={variant?.price ?? product.price} from={from} className={className} />;

  function addProductToCart() {
    const { _id, name, rating, description } = product;
    const line = { _id, name, image, price: product.price, rating, description, countInStock: product.countInStock, qty };
    if (choice && variant) {
      const { price: variantPrice, countInStock } = variant;
      const described = describeVariant(choice.options, variant.options);
      dispatch(addToCart({ ...line, price: variantPrice, countInStock, variantId: variant._id, variant: described }));
    } else {
      dispatch(addToCart(line));
    }
    navigate(paths.cart);
  }

  const qtySelect = <QtySelect qty={qty} choices={choices} wide={wide} onChange={setChosenQty} />;
  const addButton = <AddToCartButton wide={wide} inStock={inStock} reason={reason} onClick={addProductToCart} />;

  return (
    <>
      <PageTitle title={product.name} />
      <ProductSummary
        product={product}
        image={image}
        price={price('d-block fs-3 fw-bold')}
        picker={choice && <VariantPicker choice={choice} />}
        buyBox={
          <BuyBox
            price={price('fw-bold')}
            inStock={inStock}
            wide={wide}
            qtySelect={qtySelect}
            addButton={
              <>
                {addButton}
                {wide && <AddReason reason={reason} />}
              </>
            }
          />
        }
      />

      <Row className="mt-5">
        <Col md={8} lg={6}>
          <section aria-labelledby="reviews-heading">
            <h2 id="reviews-heading" className="h4 mb-3">
              Reviews
            </h2>
            <ReviewList productId={product._id} reviews={product.reviews} />
          </section>
          <ReviewForm productId={product._id} reviews={product.reviews} />
        </Col>
      </Row>

      {!wide && (
        <section className="buy-bar d-flex align-items-center gap-2" aria-label="Buy">
          <div className="me-auto">
            {price('fw-bold buy-bar-price')}
            <AddReason reason={reason} />
          </div>
          {inStock && (
            <div>
              <label htmlFor="product-qty" className="visually-hidden">
                Qty
              </label>
              {qtySelect}
            </div>
          )}
          {addButton}
        </section>
      )}
    </>
  );
}
