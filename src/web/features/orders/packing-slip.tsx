import { SHOP_NAME } from '../../../shared/constants';
import { nairobiMinute } from '../../../shared/dates';
import type { Order } from '../../../shared/schemas/orders';
import { nameWithVariant } from '../../../shared/variant-names';

/** What goes in the parcel: a line a product, with a box to tick as it is packed. */
function PackedItems({ items }: { items: Order['orderItems'] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col" className="slip-qty">
            Qty
          </th>
          <th scope="col">Item</th>
          <th scope="col" className="slip-check">
            <span className="visually-hidden">Packed</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((item, index) => (
          <tr key={item._id ? `${item._id}:${item.variant ?? ''}` : `deleted-${index}`}>
            <td className="slip-qty">{item.qty}</td>
            <td className="slip-item">{nameWithVariant(item.name, item.variant)}</td>
            <td className="slip-check">
              <span className="slip-box" />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The slip itself, as printed: the shop, the order number, where it goes and what goes in the parcel. */
export default function PackingSlip({ order }: { order: Order }) {
  const address = order.shippingAddress;
  const units = order.orderItems.reduce((sum, item) => sum + item.qty, 0);
  return (
    <article className="packing-slip" aria-label="Packing slip">
      <p className="slip-shop">{SHOP_NAME}</p>
      <h1 className="slip-title">Packing slip</h1>
      <p>
        Order <span className="slip-number">{order.orderNumber}</span>
      </p>
      <p>Placed {nairobiMinute(order.createdAt)}</p>
      <p>{order.isPaid ? `Paid${order.mpesaReceipt ? ` (M-Pesa ${order.mpesaReceipt})` : ''}` : 'Not paid'}</p>

      <div className="slip-section">
        <p className="slip-label">Deliver to</p>
        <p>{order.user?.name ?? 'Deleted account'}</p>
        <p className="slip-address">
          {address.ward}, {address.sub_county}
        </p>
        <p className="slip-address">
          {address.county} {address.postalCode}
        </p>
        <p>
          <span className="slip-label">Phone:</span> {address.phoneNumber}
        </p>
      </div>

      <div className="slip-section">
        <PackedItems items={order.orderItems} />
      </div>
      <p className="slip-section">
        {order.orderItems.length} {order.orderItems.length === 1 ? 'line' : 'lines'}, {units} {units === 1 ? 'item' : 'items'}
      </p>
    </article>
  );
}
