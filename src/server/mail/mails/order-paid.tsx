import { SHOP_NAME } from '../../../shared/constants.js';
import { nairobiDay } from '../../../shared/dates.js';
import { formatKsh } from '../../../shared/money.js';
import type { Order } from '../../../shared/schemas/orders.js';
import { Button, Heading, Muted, PairsTable, Panel, Para } from '../components/blocks.js';
import { Layout, renderMail } from '../components/layout.js';
import { ACCENT } from '../components/theme.js';
import type { MailMessage } from '../mailer.js';
import { baseUrl, customerOf, orderUrl, type Pairs, textFooter, textPairs } from './facts.js';

/**
 * Sent when an order's payment is recorded, with the M-Pesa receipt when there is one. The amount
 * is what M-Pesa charged (whole shillings), not the total with its cents.
 */
export function orderPaidMail(
  order: Order,
  shopUrl: string,
  amountPaid: number = order.totalPrice,
  shopName: string = SHOP_NAME,
): MailMessage {
  const user = customerOf(order);
  const base = baseUrl(shopUrl);
  const short = order.orderNumber;
  const url = orderUrl(order, shopUrl);
  const subject = `Payment received for your ${shopName} order ${short}`;
  const facts: Pairs = [
    ['Order', short],
    ['Amount paid', formatKsh(amountPaid)],
    ...(order.paidAt ? ([['Paid on', nairobiDay(order.paidAt)]] as Pairs) : []),
    ['Payment method', 'M-Pesa'],
    ...(order.mpesaReceipt ? ([['M-Pesa receipt', order.mpesaReceipt]] as Pairs) : []),
  ];
  const thanks = `Thank you! We have received your payment for order ${short}. We will now prepare your order and let you know when it has been delivered.`;

  const text = [
    `Hello ${user.name},`,
    '',
    thanks,
    '',
    textPairs(facts),
    '',
    `Your order: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');

  const html = renderMail(
    <Layout
      shopName={shopName}
      title={subject}
      preheader={`We have received ${formatKsh(amountPaid)} for order ${short}.${order.mpesaReceipt ? ` M-Pesa receipt: ${order.mpesaReceipt}` : ''}`}
      shopUrl={base}
      reason={`You get this e-mail because you paid for an order at ${shopName}.`}
    >
      <Heading>Payment received</Heading>
      <Para>
        <Muted>Order {short}</Muted>
      </Para>
      <Para style={{ marginTop: '18px' }}>Hello {user.name},</Para>
      <Para>{thanks}</Para>
      <Panel accent={ACCENT}>
        <PairsTable rows={facts} />
      </Panel>
      <Button href={url} label="View your order" />
    </Layout>,
  );

  return { to: user.email, subject, text, html };
}
