import ListGroup from 'react-bootstrap/ListGroup';
import { Link } from 'react-router';
import { formatKsh, fromCents, toCents } from '../../../shared/money';
import { paths } from '../../config/paths';
import '../../styles/list-group.scss';
import { photoSources } from '../photo-sources';

/** A line of an order or of the cart being ordered; `_id` is null once the product has been deleted. */
export interface OrderLine {
  _id: string | null;
  name: string;
  image: string;
  price: number;
  qty: number;
  /** The variant bought ("Size 42 / Black"), for a product sold in variants. */
  variant?: string;
}

const IMAGE_SIZE = 56;

/** "2 x Ksh. 1,500.00 = Ksh. 3,000.00": the line total computed in cents so it never drifts. */
export function lineTotalText({ qty, price }: OrderLine): string {
  return `${qty} x ${formatKsh(price)} = ${formatKsh(fromCents(toCents(price) * qty))}`;
}

/** The items of an order (docs/product-rules.md, Screens: Place order and Order details): image, name linking to the product, and the line total. */
export default function OrderItemsList({ items }: { items: readonly OrderLine[] }) {
  return (
    <ListGroup variant="flush">
      {items.map((item, index) => (
        <ListGroup.Item
          key={item._id ? `${item._id}:${item.variant ?? ''}` : `deleted-${index}`}
          className="d-flex align-items-center gap-3 px-0 py-2"
        >
          <img
            {...photoSources(item.image, `${IMAGE_SIZE}px`, 320)}
            alt={item.name}
            width={IMAGE_SIZE}
            height={IMAGE_SIZE}
            loading="lazy"
            className="rounded border flex-shrink-0 object-fit-cover bg-body-tertiary"
          />
          <div
            className="flex-grow-1 d-flex flex-column flex-md-row gap-1 gap-md-3 justify-content-between"
            style={{ minWidth: 0 }}
          >
            <div className="text-break">
              {item._id ? (
                <Link to={paths.product(item._id)} className="tap-link">
                  {item.name}
                </Link>
              ) : (
                <span>{item.name}</span>
              )}
              {item.variant && <small className="d-block text-body-secondary">{item.variant}</small>}
            </div>
            <span className="text-md-end small fw-medium">{lineTotalText(item)}</span>
          </div>
        </ListGroup.Item>
      ))}
    </ListGroup>
  );
}
