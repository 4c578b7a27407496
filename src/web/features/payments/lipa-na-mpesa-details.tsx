import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import { formatKsh } from '../../../shared/money';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { paymentsApi } from './api';

/** One line of the details, with a button that copies its value for pasting into M-Pesa. */
function CopyRow({ label, value, shown = value }: { label: string; value: string; shown?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // No clipboard (an old browser, plain http): the value is on screen to type.
    }
  }
  return (
    <div className="d-flex align-items-center justify-content-between gap-2 py-1">
      <div>
        <div className="small text-body-secondary">{label}</div>
        <div className="fw-semibold font-monospace fs-5">{shown}</div>
      </div>
      <Button
        variant="outline-secondary"
        size="sm"
        className="tap-target"
        onClick={copy}
        aria-label={`Copy ${label.toLowerCase()}`}
      >
        <span aria-live="polite">{copied ? 'Copied' : 'Copy'}</span>
      </Button>
    </div>
  );
}

/**
 * A demo shop only (M-Pesa simulator): pays the order by Paybill from a simulated phone, so that a
 * person trying the shop sees the confirmation arrive and the order turn paid.
 */
function SimulatePaybillButton({ orderId }: { orderId: string }) {
  const [simulate, { isLoading }] = paymentsApi.endpoints.simulatePaybillPayment.useMutation();
  async function pay() {
    try {
      toastSuccess((await simulate({ orderId }).unwrap()).msg);
    } catch (error) {
      toastErrors(error);
    }
  }
  return (
    <div className="mt-2">
      <Button variant="outline-success" className="w-100 tap-target" disabled={isLoading} onClick={pay}>
        Simulate a Paybill payment
      </Button>
      <p className="small text-body-secondary mt-1 mb-0">Demo shop: M-Pesa here is a simulator, and no money moves.</p>
    </div>
  );
}

/**
 * The way to pay when the prompt does not come (phone off, SIM toolkit stuck, prompt dismissed):
 * Lipa na M-Pesa with the shop's Paybill and the order number as account, or its Till. The
 * details come with the payment status, so they disappear once the order is paid.
 */
export default function LipaNaMpesaDetails({ orderId }: { orderId: string }) {
  // Read, not subscribed: PaymentStatus keeps this up to date.
  const { data: status } = paymentsApi.endpoints.getPaymentStatus.useQueryState(orderId);
  if (status?.paybill) {
    const { businessNumber, accountNumber, amount } = status.paybill;
    return (
      <section aria-labelledby={`paybill-${orderId}`} className="mt-3 pt-3 border-top">
        <h3 id={`paybill-${orderId}`} className="h6 mb-1">
          Or pay with M-Pesa Paybill
        </h3>
        <p className="small text-body-secondary mb-2">M-Pesa, Lipa na M-Pesa, Pay Bill:</p>
        <CopyRow label="Business number" value={businessNumber} />
        <CopyRow label="Account number" value={accountNumber} />
        <CopyRow label="Amount" value={String(amount)} shown={formatKsh(amount)} />
        {status.paybillSimulator && <SimulatePaybillButton orderId={orderId} />}
      </section>
    );
  }
  if (status?.till) {
    const { tillNumber, amount } = status.till;
    return (
      <section aria-labelledby={`till-${orderId}`} className="mt-3 pt-3 border-top">
        <h3 id={`till-${orderId}`} className="h6 mb-1">
          Or pay with M-Pesa Buy Goods
        </h3>
        <p className="small text-body-secondary mb-2">M-Pesa, Lipa na M-Pesa, Buy Goods and Services:</p>
        <CopyRow label="Till number" value={tillNumber} />
        <CopyRow label="Amount" value={String(amount)} shown={formatKsh(amount)} />
        {status.paybillSimulator && <SimulatePaybillButton orderId={orderId} />}
      </section>
    );
  }
  return null;
}
