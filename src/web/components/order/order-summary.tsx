import Card from 'react-bootstrap/Card';
import ListGroup from 'react-bootstrap/ListGroup';
import type { OrderTotals } from '../../../shared/pricing';
import Price from '../price';
import '../../styles/list-group.scss';

/** The price summary card of Place Order and Order details; `children` adds the actions below the total. */
export default function OrderSummary({ totals, children }: { totals: OrderTotals; children?: React.ReactNode }) {
  const rows = [
    { label: 'Items', value: totals.itemsPrice },
    { label: 'Shipping', value: totals.shippingPrice },
    { label: 'Tax', value: totals.taxPrice },
  ];
  return (
    <Card className="shadow-sm">
      <ListGroup variant="flush">
        <ListGroup.Item className="py-3">
          <h2 className="h5 mb-0">Order Summary</h2>
        </ListGroup.Item>
        {rows.map((row) => (
          <ListGroup.Item key={row.label} className="d-flex justify-content-between">
            <span>{row.label}</span>
            <Price value={row.value} />
          </ListGroup.Item>
        ))}
        <ListGroup.Item className="d-flex justify-content-between fw-bold">
          <span>Total</span>
          <Price value={totals.totalPrice} />
        </ListGroup.Item>
        {children}
      </ListGroup>
    </Card>
  );
}
