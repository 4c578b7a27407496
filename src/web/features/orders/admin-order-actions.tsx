import Button from 'react-bootstrap/Button';
import ListGroup from 'react-bootstrap/ListGroup';
import Spinner from 'react-bootstrap/Spinner';
import type { Order } from '../../../shared/schemas/orders';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { RecordOrderPayment } from '../payments';
import { useMarkDeliveredMutation, useMarkPaidMutation } from './api';
import '../../styles/list-group.scss';

function ButtonSpinner() {
  return <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />;
}

/**
 * The admin's manual steps (docs/product-rules.md, States): mark an unpaid order paid and an undelivered one delivered.
 * The order then reloads; the buttons wait for it so a second click cannot repeat the step. With
 * the payment's M-Pesa receipt at hand, the admin records it instead, so the ledger keeps it.
 */
export default function AdminOrderActions({ order, reloading }: { order: Order; reloading: boolean }) {
  const [markPaid, { isLoading: markingPaid }] = useMarkPaidMutation();
  const [markDelivered, { isLoading: markingDelivered }] = useMarkDeliveredMutation();

  async function markAsPaid() {
    try {
      await markPaid(order._id).unwrap();
      toastSuccess('Order marked as paid');
    } catch (error) {
      toastErrors(error);
    }
  }

  async function markAsDelivered() {
    try {
      await markDelivered(order._id).unwrap();
      toastSuccess('Order marked as delivered');
    } catch (error) {
      toastErrors(error);
    }
  }

  if (order.isPaid && order.isDelivered) return null;
  return (
    <>
      {!order.isPaid && (
        <ListGroup.Item className="py-3">
          <RecordOrderPayment order={order} reloading={reloading} />
        </ListGroup.Item>
      )}
      <ListGroup.Item className="py-3 d-grid gap-2">
        {!order.isPaid && (
          <Button variant="dark" className="tap-target" disabled={markingPaid || reloading} onClick={markAsPaid}>
            {markingPaid && <ButtonSpinner />}
            Mark As Paid
          </Button>
        )}
        {!order.isDelivered && (
          <Button variant="dark" className="tap-target" disabled={markingDelivered || reloading} onClick={markAsDelivered}>
            {markingDelivered && <ButtonSpinner />}
            Mark As Delivered
          </Button>
        )}
      </ListGroup.Item>
    </>
  );
}
