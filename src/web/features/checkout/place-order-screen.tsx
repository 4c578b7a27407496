import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import ListGroup from 'react-bootstrap/ListGroup';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { Navigate, useNavigate } from 'react-router';
import { PAYMENT_METHOD } from '../../../shared/constants';
import type { ShippingAddress } from '../../../shared/schemas/orders';
import CheckoutSteps from '../../components/checkout-steps';
import Message from '../../components/message';
import OrderItemsList from '../../components/order/order-items-list';
import OrderSummary from '../../components/order/order-summary';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { newIdempotencyKey } from '../../lib/idempotency-key';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { type CartState, clearCartItems } from '../../stores/cart-slice';
import { useAppDispatch, useAppSelector } from '../../stores/store';
import { useCreateOrderMutation } from './api';
import { completeAddress, type ShippingNotice } from './shipping-address';
import '../../styles/list-group.scss';

function OrderReview({ cart, address }: { cart: CartState; address: ShippingAddress }) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [createOrder, { isLoading }] = useCreateOrderMutation();
  // One key for this review of the cart: tapping Place Order again after the answer was lost on a
  // weak connection opens the order already placed rather than placing a second one.
  const [idempotencyKey] = useState(newIdempotencyKey);
  const isEmpty = cart.cartItems.length === 0;

  /** Creates the order, clears the cart and opens the order page (docs/product-rules.md, Screens); failures toast each msg. */
  async function placeOrder() {
    try {
      const order = await createOrder({
        order: {
          orderItems: cart.cartItems.map(({ _id, name, image, price, qty, variantId }) => ({
            _id,
            name,
            image,
            price,
            qty,
            ...(variantId && { variantId }),
          })),
          shippingAddress: address,
          itemsPrice: cart.itemsPrice,
          shippingPrice: cart.shippingPrice,
          taxPrice: cart.taxPrice,
          totalPrice: cart.totalPrice,
        },
        idempotencyKey,
      }).unwrap();
      dispatch(clearCartItems());
      toastSuccess('Order placed');
      navigate(paths.order(order._id), { state: { justPlaced: true } });
    } catch (error) {
      toastErrors(error);
    }
  }

  return (
    <>
      <PageTitle title="Place Order" />
      <CheckoutSteps step1 step2 step3 />
      <h1 className="visually-hidden">Place Order</h1>
      <Row className="g-4">
        <Col md={8}>
          <ListGroup variant="flush">
            <ListGroup.Item className="px-0 pb-3">
              <h2 className="h4">Shipping</h2>
              <p className="mb-1">
                <strong>Address: </strong>
                {address.county}, {address.sub_county}, {address.ward}, {address.postalCode}
              </p>
              <p className="mb-0">
                <strong>Phone: </strong>
                {address.phoneNumber}
              </p>
            </ListGroup.Item>
            <ListGroup.Item className="px-0 py-3">
              <h2 className="h4">Payment Method</h2>
              <p className="mb-0">
                <strong>Method: </strong>
                {PAYMENT_METHOD}
              </p>
            </ListGroup.Item>
            <ListGroup.Item className="px-0 py-3">
              <h2 className="h4">Order Items</h2>
              {isEmpty ? <Message>Your cart is empty</Message> : <OrderItemsList items={cart.cartItems} />}
            </ListGroup.Item>
          </ListGroup>
        </Col>
        <Col md={4}>
          <OrderSummary totals={cart}>
            <ListGroup.Item className="py-3">
              <Button variant="dark" className="w-100" disabled={isEmpty || isLoading} onClick={placeOrder}>
                {isLoading && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
                Place Order
              </Button>
            </ListGroup.Item>
          </OrderSummary>
        </Col>
      </Row>
    </>
  );
}

/** Order review and placement (docs/product-rules.md, Screens: Place order): only with a complete address (docs/product-rules.md, Validation). */
export default function PlaceOrderScreen() {
  const cart = useAppSelector((s) => s.cart);
  const address = completeAddress(cart.shippingAddress);
  if (!address) {
    const notice: ShippingNotice = { addressIncomplete: true };
    return <Navigate to={paths.shipping} state={notice} replace />;
  }
  return <OrderReview cart={cart} address={address} />;
}
