import { useCallback, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { Link, useNavigate } from 'react-router';
import { formatKsh } from '../../../shared/money';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import Price from '../../components/price';
import { paths } from '../../config/paths';
import { cartCount, lineKey } from '../../stores/cart-slice';
import { useAppSelector } from '../../stores/store';
import CartLine from './cart-line';
import '../../styles/list-group.scss';

/** The cart (docs/product-rules.md, Screens: Cart): its lines, the subtotal to 2 decimals, and the way into checkout. */
export default function CartScreen() {
  const cart = useAppSelector((s) => s.cart);
  const navigate = useNavigate();
  const isEmpty = cart.cartItems.length === 0;
  // Lines whose product the shop no longer sells, named once they have left the cart.
  const [gone, setGone] = useState<string[]>([]);
  const noteGone = useCallback((name: string) => setGone((names) => (names.includes(name) ? names : [...names, name])), []);

  // Spec: checkout goes to /login?redirect=/shipping; the sign-in screen sends a signed-in shopper straight on.
  const proceedToCheckout = () => navigate(paths.login(paths.shipping));

  return (
    <Row className="g-4">
      <PageTitle title="Shopping Cart" />
      <Col md={8}>
        <h1 className="h3 mb-3">Shopping Cart</h1>
        {gone.length > 0 && <Message variant="warning">No longer sold, so taken out of your cart: {gone.join(', ')}</Message>}
        {isEmpty ? (
          <Message>
            Your cart is empty{' '}
            <Link to={paths.home} className="alert-link ms-1">
              Go Back
            </Link>
          </Message>
        ) : (
          <div className="list-group list-group-flush">
            {cart.cartItems.map((item, index) => (
              <CartLine key={lineKey(item)} item={item} belowFold={index > 2} onGone={noteGone} />
            ))}
          </div>
        )}
      </Col>
      <Col md={4}>
        <Card className="shadow-sm">
          <div className="list-group list-group-flush">
            <div className="list-group-item py-3">
              <h2 className="h5">Subtotal ({cartCount(cart)}) items</h2>
              <Price value={cart.itemsPrice} className="fs-5 fw-semibold" />
            </div>
            {!isEmpty && (
              <div className="list-group-item py-3">
                {/* The shared pricing rules with the shop's own fee, threshold and tax (docs/settings.md). */}
                <div data-testid="cart-shipping">
                  <div className="d-flex justify-content-between">
                    <span>Shipping</span>
                    <Price value={cart.shippingPrice} />
                  </div>
                  <small className="text-body-secondary d-block mb-2">
                    {cart.shippingPrice > 0
                      ? `Add more than ${formatKsh(cart.pricing.freeShippingThreshold - cart.itemsPrice)} for free delivery`
                      : 'Free delivery'}
                  </small>
                </div>
                <div className="d-flex justify-content-between" data-testid="cart-tax">
                  <span>Tax</span>
                  <Price value={cart.taxPrice} />
                </div>
                <div className="d-flex justify-content-between fw-semibold mt-1" data-testid="cart-total">
                  <span>Total</span>
                  <Price value={cart.totalPrice} />
                </div>
              </div>
            )}
            <div className="list-group-item py-3">
              <Button variant="dark" className="w-100" disabled={isEmpty} onClick={proceedToCheckout}>
                Proceed To Checkout
              </Button>
            </div>
          </div>
        </Card>
      </Col>
    </Row>
  );
}
