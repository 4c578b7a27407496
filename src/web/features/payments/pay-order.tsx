import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { useNavigate } from 'react-router';
import { formatKsh } from '../../../shared/money';
import type { Order } from '../../../shared/schemas/orders';
import { mpesaNumberForm } from '../../../shared/schemas/payments';
import FormField from '../../components/form/form-field';
import { useZodForm } from '../../components/form/use-zod-form';
import { paths } from '../../config/paths';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { followPayment } from '../../stores/followed-payment-slice';
import { useAppDispatch } from '../../stores/store';
import { paymentsApi, useSendPaymentPromptMutation } from './api';

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
  const form = useZodForm<{ phoneNumber: string }, { phoneNumber: string }>(mpesaNumberForm, {
    phoneNumber: rememberedMpesaNumber() ?? order.shippingAddress.phoneNumber,
  });
  const [sendPrompt, { isLoading: sending }] = useSendPaymentPromptMutation();
  // Read, not subscribed: PaymentStatus keeps this up to date.
  const { data: status } = paymentsApi.endpoints.getPaymentStatus.useQueryState(order._id);
  const waiting = status?.lastAttempt?.status === 'pending';
  // After a part payment (by Paybill or Till) the prompt asks M-Pesa for what is still due, which
  // the Paybill or Till details carry; otherwise the total rounded up to whole shillings.
  const partPaid = status && !status.isPaid && status.amountPaid > 0 ? status : null;
  const stillDue = (partPaid?.paybill ?? partPaid?.till)?.amount;
  const amount = stillDue ?? Math.ceil(order.totalPrice);

  const pay = form.handleSubmit(async ({ phoneNumber }) => {
    try {
      const { msg } = await sendPrompt({ orderId: order._id, phoneNumber, Amount: amount }).unwrap();
      rememberMpesaNumber(phoneNumber);
      toastSuccess(msg);
      // Home, as the specification says; the banner there follows the payment.
      dispatch(followPayment({ orderId: order._id, orderNumber: order.orderNumber }));
      navigate(paths.home);
    } catch (error) {
      toastErrors(error);
    }
  });

  return (
    <Form noValidate onSubmit={pay}>
      <FormField
        form={form}
        name="phoneNumber"
        id={`mpesa-phone-${order._id}`}
        label="M-Pesa phone number"
        schema={mpesaNumberForm.shape.phoneNumber}
        type="tel"
        inputMode="numeric"
        autoComplete="tel"
        placeholder="e.g. 0712345678"
        required
        hint={
          waiting
            ? 'A prompt is already on its way to your phone. If it does not come, wait a minute and send it again.'
            : 'M-Pesa sends a prompt to this phone; enter your PIN there.'
        }
      />
      {partPaid && (
        <p className="mb-1" data-testid="pay-remaining">
          You have paid <strong className="text-nowrap">{formatKsh(partPaid.amountPaid)}</strong> so far.
        </p>
      )}
      <p className="mb-3">
        You will pay <strong className="text-nowrap">{formatKsh(amount)}</strong>
        {!partPaid && amount !== order.totalPrice && (
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
