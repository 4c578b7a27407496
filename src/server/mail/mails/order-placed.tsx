import { SHOP_NAME } from '../../../shared/constants.js';
import { nairobiDay } from '../../../shared/dates.js';
import { formatKsh } from '../../../shared/money.js';
import type { Order } from '../../../shared/schemas/orders.js';
import type { LipaNaMpesa } from '../../payments/lipa-na-mpesa.js';
import { Button, Heading, Link, Muted, Notice, PairsTable, Panel, Para, Subheading } from '../components/blocks.js';
import { Layout, renderMail } from '../components/layout.js';
import { ACCENT, LABEL } from '../components/theme.js';
import type { MailMessage } from '../mailer.js';
import {
  addressRows,
  baseUrl,
  customerOf,
  mpesaAmount,
  orderUrl,
  type Pairs,
  summaryRows,
  textFooter,
  textItems,
  textPairs,
} from './facts.js';
import { AddressPanel, ItemsTable, SummaryTable } from './order-tables.js';

/** The Paybill or Till lines of the placed mail: the fallback when the prompt does not come. */
function lipaNaMpesaRows(order: Order, shop: LipaNaMpesa, amount: string): Pairs {
  if ('paybill' in shop)
    return [
      ['Business number', shop.paybill],
      ['Account number', order.orderNumber],
      ['Amount', amount],
    ];
  return [
    ['Till number', shop.till],
    ['Amount', amount],
  ];
}

/** How to pay an unpaid order: from its page with the prompt, else by Paybill or Till. */
function HowToPay({
  url,
  amount,
  fallbackTitle,
  fallbackRows,
}: {
  url: string;
  amount: string;
  fallbackTitle: string;
  fallbackRows: Pairs;
}) {
  return (
    <Panel accent={ACCENT}>
      <p style={{ margin: '0 0 8px', fontSize: '13px', ...LABEL, color: ACCENT }}>How to pay</p>
      <Para style={{ wordBreak: 'break-word' }}>
        Pay with M-Pesa from your order page: open <Link href={url} />, enter your M-Pesa number and confirm the prompt on your
        phone with your PIN.
      </Para>
      <Para style={{ margin: '0 0 12px' }}>
        Amount: <strong style={{ fontSize: '18px' }}>{amount}</strong>
      </Para>
      <Para style={{ margin: '0 0 4px' }}>
        <strong>{fallbackTitle}</strong>: on your phone open M-Pesa, Lipa na M-Pesa.
      </Para>
      <PairsTable rows={fallbackRows} />
    </Panel>
  );
}

/** Sent when an order is created: what was ordered, where it goes and how to pay with M-Pesa. */
export function orderPlacedMail(order: Order, shopUrl: string, shop: LipaNaMpesa, shopName: string = SHOP_NAME): MailMessage {
  const user = customerOf(order);
  const base = baseUrl(shopUrl);
  const short = order.orderNumber;
  const url = orderUrl(order, shopUrl);
  // Written as the order page's Pay button writes it: "Ksh. 4,412.00".
  const amount = formatKsh(mpesaAmount(order));
  const subject = `Your ${shopName} order ${short} is placed`;
  const howToPay = `Pay with M-Pesa from your order page: open ${url}, enter your M-Pesa number and confirm the prompt on your phone with your PIN. Amount: ${amount}`;
  const fallbackTitle = 'paybill' in shop ? 'Or pay with M-Pesa Paybill' : 'Or pay with M-Pesa Buy Goods (Till)';
  const fallbackRows = lipaNaMpesaRows(order, shop, amount);
  const alreadyPaid = 'This order is already paid. Thank you!';
  const payText = order.isPaid
    ? [alreadyPaid]
    : ['HOW TO PAY', howToPay, '', `${fallbackTitle}: on your phone open M-Pesa, Lipa na M-Pesa.`, textPairs(fallbackRows)];
  const placedOn = nairobiDay(order.createdAt);

  const text = [
    `Hello ${user.name},`,
    '',
    `Thank you for your order. We have received order ${short}, placed on ${placedOn}.`,
    '',
    ...payText,
    '',
    'ITEMS',
    textItems(order),
    '',
    'SUMMARY',
    textPairs(summaryRows(order)),
    '',
    'SHIPPING ADDRESS',
    textPairs(addressRows(order)),
    '',
    `Your order: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');

  const html = renderMail(
    <Layout
      shopName={shopName}
      title={subject}
      preheader={
        order.isPaid ? `Order ${short} is placed and paid.` : `Order ${short} is placed. Amount to pay with M-Pesa: ${amount}`
      }
      shopUrl={base}
      reason={`You get this e-mail because you placed an order at ${shopName}.`}
    >
      <Heading>Thank you for your order</Heading>
      <Para>
        <Muted>
          Order {short} · placed on {placedOn}
        </Muted>
      </Para>
      <Para style={{ marginTop: '18px' }}>Hello {user.name},</Para>
      <Para>
        {order.isPaid
          ? 'We have received your order. Here is what you ordered.'
          : 'We have received your order. It is reserved for you and we will ship it as soon as it is paid.'}
      </Para>
      {order.isPaid ? (
        <Notice accent={ACCENT}>{alreadyPaid}</Notice>
      ) : (
        <>
          <HowToPay url={url} amount={amount} fallbackTitle={fallbackTitle} fallbackRows={fallbackRows} />
          {/* The how-to-pay text already spells the address out. */}
          <Button href={url} label="Pay with M-Pesa" showAddress={false} />
        </>
      )}
      <Subheading>What you ordered</Subheading>
      <ItemsTable order={order} shopUrl={shopUrl} />
      <SummaryTable order={order} />
      <Subheading>Shipping address</Subheading>
      <AddressPanel order={order} />
      {order.isPaid && <Button href={url} label="View your order" />}
    </Layout>,
  );

  return { to: user.email, subject, text, html };
}
