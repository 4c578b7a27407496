import Container from 'react-bootstrap/Container';
import { SHOP_NAME } from '../../../shared/constants';

/** The product name and the current year (docs/product-rules.md, What the shop offers). */
export default function Footer() {
  return (
    <footer className="border-top mt-5 py-4 bg-body-tertiary">
      <Container className="text-center text-body-secondary small">
        {SHOP_NAME} &copy; {new Date().getFullYear()}
      </Container>
    </footer>
  );
}
