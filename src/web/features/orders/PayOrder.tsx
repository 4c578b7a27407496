import Button from 'react-bootstrap/Button';
import type { Order } from '../../../shared/schemas/orders';

/**
 * Where the owner of an unpaid order pays. The M-Pesa prompt comes in a later issue and will
 * replace this file; until then it must not pretend to pay, so the button stays disabled.
 */
export default function PayOrder({ order }: { order: Order }) {
  const noteId = `pay-note-${order._id}`;
  return (
    <div>
      <Button variant="success" className="w-100" disabled aria-describedby={noteId}>
        Pay with M-Pesa
      </Button>
      <p id={noteId} className="small text-body-secondary mt-2 mb-0">
        M-Pesa payment will be available here soon. The shop marks your order paid when it receives your payment.
      </p>
    </div>
  );
}
