import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import { Link } from 'react-router';
import { formatKsh } from '../../../shared/money';
import { nameWithVariant } from '../../../shared/variant-names';
import { TrashIcon } from '../../components/icons';
import { photoSources } from '../../components/photo-sources';
import Price from '../../components/price';
import { paths } from '../../config/paths';
import { addToCart, type CartItem, lineKey, refreshCartLine, removeFromCart } from '../../stores/cart-slice';
import { useAppDispatch } from '../../stores/store';
import { freshLine, useGetCartProductQuery } from './api';
import '../../styles/list-group.scss';

const IMAGE_SIZE = 72;

/** The quantities a line offers: 1 to the stock count, and never fewer than the qty already chosen. */
function qtyChoices(item: CartItem): number[] {
  const most = Math.max(1, item.countInStock, item.qty);
  return Array.from({ length: most }, (_, i) => i + 1);
}

/**
 * Brings a line up to date with the shop each time the cart is opened (the slice keeps the price it
 * was added at while the shop's differs); a line no longer sold is reported before it goes.
 */
function useFreshLine(item: CartItem, onGone: (name: string) => void): void {
  const dispatch = useAppDispatch();
  const { data: now } = useGetCartProductQuery(item._id, { refetchOnMountOrArgChange: true });
  useEffect(() => {
    if (!now) return;
    const fresh = freshLine(item, now);
    if (fresh.gone) onGone(nameWithVariant(item.name, item.variant));
    dispatch(refreshCartLine(fresh));
  }, [now, item, onGone, dispatch]);
}

/**
 * One cart line: image, name, price, a quantity choice and a remove button. Bootstrap's list item
 * and select as markup: react-bootstrap's ListGroup and Form would add seven files to the cart's
 * first download for no behaviour the cart uses.
 */
export default function CartLine({
  item,
  belowFold,
  onGone,
}: {
  item: CartItem;
  belowFold: boolean;
  /** Told the name of a line whose product the shop no longer sells, as the line leaves the cart. */
  onGone: (name: string) => void;
}) {
  const dispatch = useAppDispatch();
  useFreshLine(item, onGone);
  // Two lines of one product differ by their variant: labels and ids say which.
  const label = nameWithVariant(item.name, item.variant);
  const key = lineKey(item);

  return (
    <div className="list-group-item d-flex align-items-center gap-3 py-3 px-0 px-sm-2">
      <img
        {...photoSources(item.image, `${IMAGE_SIZE}px`, 320)}
        alt={item.name}
        width={IMAGE_SIZE}
        height={IMAGE_SIZE}
        loading={belowFold ? 'lazy' : undefined}
        className="rounded border flex-shrink-0 object-fit-cover bg-body-tertiary"
      />
      {/* On a phone the name, price and controls stack beside the image; from md up they share one row. */}
      <div className="flex-grow-1 d-flex flex-column flex-md-row align-items-md-center gap-2" style={{ minWidth: 0 }}>
        <div className="flex-md-grow-1 text-break">
          <Link to={paths.product(item._id)} className="fw-medium tap-link">
            {item.name}
          </Link>
          {item.variant && <small className="d-block text-body-secondary">{item.variant}</small>}
        </div>
        <div className="me-md-2 text-nowrap">
          <Price value={item.price} className="fw-semibold" />
          {item.priceWas !== undefined && (
            <small className="d-block text-body-secondary">
              was <s>{formatKsh(item.priceWas)}</s>
            </small>
          )}
          {item.countInStock < 1 && <small className="d-block text-danger">Out of Stock</small>}
        </div>
        <div className="d-flex align-items-center gap-2">
          <div>
            <label htmlFor={`qty-${key}`} className="visually-hidden">
              Quantity for {label}
            </label>
            <select
              id={`qty-${key}`}
              className="form-select"
              value={item.qty}
              onChange={(e) => dispatch(addToCart({ ...item, qty: Number(e.target.value) }))}
              style={{ width: '5.5rem' }}
            >
              {qtyChoices(item).map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </div>
          <Button variant="outline-danger" aria-label={`Remove ${label}`} onClick={() => dispatch(removeFromCart(key))}>
            <TrashIcon />
          </Button>
        </div>
      </div>
    </div>
  );
}
