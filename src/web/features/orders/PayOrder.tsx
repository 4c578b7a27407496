import { type FormEvent, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { useNavigate } from 'react-router';
import { formatKsh } from '../../../shared/money';
import type { Order } from '../../../shared/schemas/orders';
import { paths } from '../../app/paths';
import { useAppDispatch } from '../../app/store';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { followPayment } from './followedPaymentSlice';
import { paymentsApi, useSendPaymentPromptMutation } from './paymentsApi';

const MPESA_NUMBER_KEY = 'mpesaNumber';

function rememberedMpesaNumber(): string | null {
  try {
    return localStorage.getItem(MPESA_NUMBER_KEY);
  } catch {
    return null;
  }
}

function rememberMpesaNumber(number: string): void {
  try {
    localStorage.setItem(MPESA_NUMBER_KEY, number);
  } catch {
    // Private mode or full storage: the field simply starts empty of it next time.
  }
}

/**
 * Where the owner of an unpaid order pays (docs/product-rules.md: Screens, API): the shop sends an M-Pesa prompt to the
 * number given, shows the server's msg as a toast and goes home; the order page shows the result.
 */
export default function PayOrder({ order }: { order: Order }) {
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  // The number last paid with on this device, else the order's contact number.
  const [phoneNumber, setPhoneNumber] = useState(() => rememberedMpesaNumber() ?? order.shippingAddress.phoneNumber);
  const [sendPrompt, { isLoading: sending }] = useSendPaymentPromptMutation();
  // Read, not subscribed: PaymentStatus keeps this up to date.
  const { data: status } = paymentsApi.endpoints.getPaymentStatus.useQueryState(order._id);
  const waiting = status?.lastAttempt?.status === 'pending';
  // M-Pesa charges whole shillings: the total rounded up, as the server expects.
  const amount = Math.ceil(order.totalPrice);
  const hintId = `mpesa-phone-hint-${order._id}`;

  async function pay(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    try {
      const { msg } = await sendPrompt({ orderId: order._id, phoneNumber: phoneNumber.trim(), Amount: amount }).unwrap();
      rememberMpesaNumber(phoneNumber.trim());
      toastSuccess(msg);
      // Home, as the specification says; the banner there follows the payment.
      dispatch(followPayment({ orderId: order._id, orderNumber: order.orderNumber }));
      navigate(paths.home);
    } catch (error) {
      toastErrors(error);
    }
  }

  return (
    <Form onSubmit={pay}>
      <Form.Group controlId={`mpesa-phone-${order._id}`} className="mb-3">
        <Form.Label>M-Pesa phone number</Form.Label>
        <Form.Control
          type="tel"
          inputMode="numeric"
          autoComplete="tel"
          placeholder="e.g. 0712345678"
          required
          maxLength={20}
          value={phoneNumber}
          onChange={(e) => setPhoneNumber(e.target.value)}
          aria-describedby={hintId}
        />
        <Form.Text id={hintId}>
          {waiting
            ? 'A prompt is already on its way to your phone. If it does not come, wait a minute and send it again.'
            : 'M-Pesa sends a prompt to this phone; enter your PIN there.'}
        </Form.Text>
      </Form.Group>
      <p className="mb-3">
        You will pay <strong>{formatKsh(amount)}</strong>
        {amount !== order.totalPrice && (
          <span className="d-block small text-body-secondary">
            M-Pesa charges whole shillings: {formatKsh(amount).replace(/\.00$/, '')}
          </span>
        )}
      </p>
      <Button type="submit" variant="success" className="w-100" disabled={sending}>
        {sending && <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />}
        Pay with M-Pesa
      </Button>
    </Form>
  );
}
