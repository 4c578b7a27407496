import { nairobiDay } from '../../../shared/dates.js';
import { formatKsh } from '../../../shared/money.js';
import type { Order } from '../../../shared/schemas/orders.js';
import { Button, Heading, Link, Muted, PairsTable, Panel, Para, Subheading } from '../components/blocks.js';
import { Layout, renderMail } from '../components/layout.js';
import { ACCENT } from '../components/theme.js';
import type { MailMessage } from '../mailer.js';
import { addressRows, baseUrl, merchantAlertReason, orderUrl, type Pairs, textFooter, textItems, textPairs } from './facts.js';
import { AddressPanel, ItemsTable, SummaryTable } from './order-tables.js';

// Merchant alerts go to the settings' alert address, about the shop rather than one shopper.

function customerLine(order: Order): string {
  return order.user ? `${order.user.name} <${order.user.email}>` : 'a deleted account';
}

/**
 * A new order: paid (the usual alert), or placed and not paid yet when the merchant asked for
 * those too. What was ordered, by whom, where it goes, and the link to the order.
 */
export function newOrderAlertMail(to: string, order: Order, shopUrl: string, shopName: string): MailMessage {
  const base = baseUrl(shopUrl);
  const short = order.orderNumber;
  // The order page shows an admin its actions (Mark As Paid, Mark As Delivered).
  const url = orderUrl(order, shopUrl);
  const state = order.isPaid ? 'paid' : 'not paid yet';
  const subject = order.isPaid
    ? `New paid order ${short}: ${formatKsh(order.totalPrice)}`
    : `New order ${short} (not paid yet): ${formatKsh(order.totalPrice)}`;
  const facts: Pairs = [
    ['Order', short],
    ['Customer', customerLine(order)],
    ['Total', formatKsh(order.totalPrice)],
    ['Payment', order.isPaid ? `Paid${order.mpesaReceipt ? `, M-Pesa receipt ${order.mpesaReceipt}` : ''}` : 'Not paid yet'],
  ];
  const text = [
    `A new order was placed at ${shopName} (${state}).`,
    '',
    textPairs(facts),
    '',
    'ITEMS',
    textItems(order),
    '',
    'SHIPPING ADDRESS',
    textPairs(addressRows(order)),
    '',
    `Open the order: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');
  const html = renderMail(
    <Layout
      shopName={shopName}
      title={subject}
      preheader={`${customerLine(order)} ordered ${order.orderItems.length} item(s) for ${formatKsh(order.totalPrice)}.`}
      shopUrl={base}
      reason={merchantAlertReason(shopName)}
    >
      <Heading>{order.isPaid ? 'New paid order' : 'New order, not paid yet'}</Heading>
      <Para>
        <Muted>
          Order {short} · placed on {nairobiDay(order.createdAt)}
        </Muted>
      </Para>
      {/* Short values only in the two columns: a long address must not widen the mail on a phone. */}
      <Panel accent={order.isPaid ? ACCENT : undefined}>
        <PairsTable rows={facts.filter(([label]) => label !== 'Order' && label !== 'Customer')} />
      </Panel>
      <Subheading>Customer</Subheading>
      <Para style={{ wordBreak: 'break-word' }}>
        {order.user ? (
          <>
            {order.user.name}
            <br />
            <Link href={`mailto:${order.user.email}`}>{order.user.email}</Link>
          </>
        ) : (
          'A deleted account'
        )}
      </Para>
      <Subheading>What was ordered</Subheading>
      <ItemsTable order={order} shopUrl={shopUrl} />
      <SummaryTable order={order} />
      <Subheading>Shipping address</Subheading>
      <AddressPanel order={order} />
      <Button href={url} label="Open the order" />
    </Layout>,
  );
  return { to, subject, text, html };
}
