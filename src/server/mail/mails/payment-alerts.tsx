import { formatKsh } from '../../../shared/money.js';
import { EXCEPTION_REASON } from '../../../shared/payment-exceptions.js';
import type { PaymentException } from '../../../shared/schemas/payments.js';
import { Button, Heading, Muted, Notice, PairsTable, Para } from '../components/blocks.js';
import { Layout, renderMail } from '../components/layout.js';
import { DANGER } from '../components/theme.js';
import type { MailMessage } from '../mailer.js';
import { baseUrl, merchantAlertReason, type Pairs, textFooter, textPairs } from './facts.js';

/** The merchant's alerts about M-Pesa: a payment to settle, a message the shop could not act on. */

export interface PaymentExceptionAlert {
  receipt: string | null;
  amount: number;
  phone: string | null;
  exception: PaymentException;
  /** The order it names, when it names one. */
  orderNumber: string | null;
  /** Why M-Pesa has not confirmed it, or its amount as M-Pesa wrote it. */
  detail?: string | null;
}

/** A payment that does not simply pay an order: what it is, and the Payments screen to settle it on. */
export function paymentExceptionAlertMail(
  to: string,
  payment: PaymentExceptionAlert,
  shopUrl: string,
  shopName: string,
): MailMessage {
  const base = baseUrl(shopUrl);
  const url = `${base}/admin/payments`;
  const reason = EXCEPTION_REASON[payment.exception];
  const subject = `Payment needs attention: ${formatKsh(payment.amount)}${payment.receipt ? ` (${payment.receipt})` : ''}`;
  const facts: Pairs = [
    ['Amount', formatKsh(payment.amount)],
    ...(payment.receipt ? ([['M-Pesa receipt', payment.receipt]] as Pairs) : []),
    ...(payment.phone ? ([['Phone', payment.phone]] as Pairs) : []),
    ['Order', payment.orderNumber ?? 'None matched'],
  ];
  if (payment.detail) facts.push(['Detail', payment.detail]);
  const text = [
    reason,
    '',
    textPairs(facts),
    '',
    `Settle it on the Payments screen: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');
  const html = renderMail(
    <Layout shopName={shopName} title={subject} preheader={reason} shopUrl={base} reason={merchantAlertReason(shopName)}>
      <Heading>A payment needs your attention</Heading>
      <Para>
        <Muted>M-Pesa payment of {formatKsh(payment.amount)}</Muted>
      </Para>
      <Notice accent={DANGER}>{reason}</Notice>
      <PairsTable rows={facts} />
      <Button href={url} label="Open Payments" />
    </Layout>,
  );
  return { to, subject, text, html };
}

export interface ParkedCallbackAlert {
  /** stk, c2b_confirmation, reversal_result, … */
  kind: string;
  receivedAt: Date;
  tries: number;
}

/** A message from M-Pesa the shop could not act on after every try: kept as it came, for the merchant to look at. */
export function callbackParkedAlertMail(to: string, parked: ParkedCallbackAlert, shopUrl: string, shopName: string): MailMessage {
  const base = baseUrl(shopUrl);
  const url = `${base}/admin/payments`;
  const subject = `An M-Pesa message could not be processed (${parked.kind})`;
  const reason = `The shop tried ${parked.tries} times to act on a message M-Pesa sent and failed each time. It is kept exactly as it came, and no longer retried.`;
  const facts: Pairs = [
    ['Kind', parked.kind],
    ['Received', parked.receivedAt.toISOString()],
    ['Tries', String(parked.tries)],
  ];
  const text = [
    reason,
    '',
    textPairs(facts),
    '',
    `Check your M-Pesa statement and the Payments screen: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');
  const html = renderMail(
    <Layout shopName={shopName} title={subject} preheader={reason} shopUrl={base} reason={merchantAlertReason(shopName)}>
      <Heading>An M-Pesa message needs your attention</Heading>
      <Notice accent={DANGER}>{reason}</Notice>
      <PairsTable rows={facts} />
      <Button href={url} label="Open Payments" />
    </Layout>,
  );
  return { to, subject, text, html };
}
