import Col from 'react-bootstrap/Col';
import ListGroup from 'react-bootstrap/ListGroup';
import Row from 'react-bootstrap/Row';
import { Link, useLocation, useParams } from 'react-router';
import { nairobiDay } from '../../../shared/dates';
import type { Order } from '../../../shared/schemas/orders';
import Loader from '../../components/loader';
import Message from '../../components/message';
import OrderItemsList from '../../components/order/order-items-list';
import OrderSummary from '../../components/order/order-summary';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { errorMessage } from '../../lib/errors';
import { useAppSelector } from '../../stores/store';
import { LipaNaMpesaDetails, PaymentStatus, PayOrder } from '../payments';
import AdminOrderActions from './admin-order-actions';
import { useGetOrderDetailsQuery } from './api';
import '../../styles/list-group.scss';

/** Set by Place Order: the shopper has just ordered, and is thanked before anything else. */
function OrderThanks({ order }: { order: Order }) {
  return (
    <div className="mb-3" data-testid="order-thanks">
      <h2 className="h3 mb-1">Thank you for your order!</h2>
      <p className="mb-0 text-body-secondary">
        {order.isPaid ? 'It is paid, and we will deliver it soon.' : 'Pay with M-Pesa below, and we will deliver it soon.'}
      </p>
    </div>
  );
}

/** Who the order goes to, where, and whether it has been delivered. */
function ShippingDetails({ order }: { order: Order }) {
  const address = order.shippingAddress;
  return (
    <>
      <h2 className="h4">Shipping</h2>
      <p className="mb-1">
        <strong>Name: </strong>
        {order.user?.name ?? 'Deleted account'}
      </p>
      {order.user && (
        <p className="mb-1 text-break">
          <strong>Email: </strong>
          <a href={`mailto:${order.user.email}`}>{order.user.email}</a>
        </p>
      )}
      <p className="mb-1">
        <strong>Address: </strong>
        {address.county}, {address.sub_county}, {address.ward}, {address.postalCode}
      </p>
      <p>
        <strong>Phone: </strong>
        {address.phoneNumber}
      </p>
      {order.isDelivered ? (
        <Message variant="success">Delivered on {nairobiDay(order.deliveredAt)}</Message>
      ) : (
        // A state to come, not an error: nothing has gone wrong with a new order.
        <Message variant="secondary">Not Delivered</Message>
      )}
    </>
  );
}

/** One order (docs/product-rules.md, Screens: Order details): address, delivery and payment state, items, summary and the next steps. */
export default function OrderScreen() {
  const { id = '' } = useParams();
  const user = useAppSelector((s) => s.auth.user);
  const { data: order, isLoading, isFetching, error } = useGetOrderDetailsQuery(id);
  // Set by Place Order: the shopper has just ordered, and is thanked before anything else.
  const location = useLocation();
  const justPlaced = (location.state as { justPlaced?: boolean } | null)?.justPlaced === true;

  if (isLoading) return <Loader label="Loading the order…" />;
  if (error || !order) {
    return (
      <>
        <PageTitle title="Order" />
        <Message variant="danger">{errorMessage(error)}</Message>
      </>
    );
  }

  const isOwner = user !== null && order.user?._id === user._id;
  // The shopper's next step is to pay: on a phone the pay box comes first, above the details.
  const canPayHere = isOwner && !order.isPaid;

  return (
    <>
      <PageTitle title={`Order ${order.orderNumber}`} />
      {justPlaced && <OrderThanks order={order} />}
      <div className="d-flex flex-wrap align-items-start justify-content-between gap-2 mb-3">
        <div>
          <h1 className="h4 mb-1">Order {order.orderNumber}</h1>
          <p className="small text-body-secondary text-break mb-0">Order id: {order._id}</p>
        </div>
        {user?.isAdmin && (
          <Link to={paths.admin.slip(order._id)} className="btn btn-outline-dark tap-target">
            Packing slip
          </Link>
        )}
      </div>
      <Row className="g-4">
        <Col md={8}>
          <ListGroup variant="flush">
            <ListGroup.Item className="px-0 pb-3">
              <ShippingDetails order={order} />
            </ListGroup.Item>
            <ListGroup.Item className="px-0 py-3">
              <h2 className="h4">Payment Method</h2>
              <p>
                <strong>Method: </strong>
                {order.paymentMethod}
              </p>
              <PaymentStatus order={order} canPay={isOwner} isAdmin={user?.isAdmin ?? false} />
            </ListGroup.Item>
            <ListGroup.Item className="px-0 py-3">
              <h2 className="h4">Order Items</h2>
              <OrderItemsList items={order.orderItems} />
            </ListGroup.Item>
          </ListGroup>
        </Col>
        <Col md={4} className={canPayHere ? 'pay-first-on-phone' : undefined}>
          <OrderSummary totals={order}>
            {!order.isPaid && isOwner && (
              <ListGroup.Item className="py-3">
                <PayOrder order={order} />
                <LipaNaMpesaDetails orderId={order._id} />
              </ListGroup.Item>
            )}
            {user?.isAdmin && <AdminOrderActions order={order} reloading={isFetching} />}
          </OrderSummary>
        </Col>
      </Row>
    </>
  );
}
