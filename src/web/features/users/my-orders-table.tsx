import Table from 'react-bootstrap/Table';
import { Link } from 'react-router';
import type { Order } from '../../../shared/schemas/orders';
import { CrossIcon } from '../../components/icons';
import Price from '../../components/price';
import { paths } from '../../config/paths';
import '../../styles/tables.scss';
import { nairobiDay } from '../../../shared/dates';

/** The shopper's own orders (docs/product-rules.md, Screens: Profile): ID, DATE, TOTAL, PAID, DELIVERED and Details. */
export default function MyOrdersTable({ orders }: { orders: Order[] }) {
  return (
    <Table striped hover responsive size="sm" className="align-middle my-orders">
      <thead>
        <tr>
          <th scope="col">ID</th>
          <th scope="col">DATE</th>
          <th scope="col">TOTAL</th>
          <th scope="col">PAID</th>
          <th scope="col">DELIVERED</th>
          {/* position-relative keeps the hidden label inside the scrolling wrapper on a phone. */}
          <th scope="col" className="position-relative">
            <span className="visually-hidden">Details</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {orders.map((order) => (
          <tr key={order._id}>
            {/* The short order number the shopper quotes and pays with; the full id on hover. */}
            <td className="font-monospace small text-nowrap" title={order._id}>
              {order.orderNumber}
            </td>
            <td className="text-nowrap">{nairobiDay(order.createdAt)}</td>
            <td className="text-nowrap">
              <Price value={order.totalPrice} />
            </td>
            <td className="text-nowrap">
              {order.isPaid && order.paidAt ? nairobiDay(order.paidAt) : <CrossIcon className="text-danger" title="Not paid" />}
            </td>
            <td className="text-nowrap">
              {order.isDelivered && order.deliveredAt ? (
                nairobiDay(order.deliveredAt)
              ) : (
                <CrossIcon className="text-danger" title="Not delivered" />
              )}
            </td>
            <td>
              <Link
                to={paths.order(order._id)}
                className="btn btn-sm btn-outline-dark"
                aria-label={`Details of order ${order._id}`}
              >
                Details
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
