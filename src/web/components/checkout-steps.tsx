import Nav from 'react-bootstrap/Nav';
import { Link } from 'react-router';
import { paths } from '../config/paths';

export interface CheckoutStepsProps {
  step1?: boolean;
  step2?: boolean;
  step3?: boolean;
}

/** Sign In, Shipping, Place Order: a step is a link only once it is reached (docs/product-rules.md, Screens). */
export default function CheckoutSteps({ step1, step2, step3 }: CheckoutStepsProps) {
  const steps = [
    { label: 'Sign In', to: paths.login(), reached: step1 },
    { label: 'Shipping', to: paths.shipping, reached: step2 },
    { label: 'Place Order', to: paths.placeOrder, reached: step3 },
  ];
  return (
    <Nav as="nav" aria-label="Checkout steps" className="checkout-steps justify-content-center mb-4">
      {steps.map((s) => (
        <Nav.Item key={s.label}>
          {s.reached ? (
            <Nav.Link as={Link} to={s.to}>
              {s.label}
            </Nav.Link>
          ) : (
            <Nav.Link disabled aria-disabled="true">
              {s.label}
            </Nav.Link>
          )}
        </Nav.Item>
      ))}
    </Nav>
  );
}
