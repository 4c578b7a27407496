import { SHOP_NAME } from '../../../shared/constants.js';
import { nairobiDay } from '../../../shared/dates.js';
import { formatKsh } from '../../../shared/money.js';
import type { Order } from '../../../shared/schemas/orders.js';
import { Button, Heading, LayoutTable, Muted, Notice, Para, ROW_CELL, RowsTable, Subheading } from '../components/blocks.js';
import { Layout, renderMail } from '../components/layout.js';
import { ACCENT, FONT, TEXT } from '../components/theme.js';
import type { MailMessage } from '../mailer.js';
import { baseUrl, customerOf, itemName, orderUrl, productUrl, textFooter } from './facts.js';
import { ItemName } from './order-tables.js';

/** What arrived: each item with its quantity, and a link to review it while its product exists. */
function DeliveredItems({ order, shopUrl }: { order: Order; shopUrl: string }) {
  return (
    <RowsTable>
      {order.orderItems.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rendered once, never reordered
        <tr key={i}>
          <td style={{ padding: '12px 12px 12px 0', ...ROW_CELL }}>
            <ItemName item={item} shopUrl={shopUrl} />
            <br />
            <Muted>Quantity: {item.qty}</Muted>
          </td>
          <td align="right" style={{ padding: '12px 0', ...ROW_CELL }}>
            {item._id && (
              <a
                href={productUrl(item._id, shopUrl)}
                style={{ color: ACCENT, fontSize: '13px', fontWeight: '600', textDecoration: 'none', whiteSpace: 'nowrap' }}
              >
                Write a review{'\u00a0›'}
              </a>
            )}
          </td>
        </tr>
      ))}
    </RowsTable>
  );
}

/** Sent when an order is marked delivered: what arrived, and an invitation to review it. */
export function orderDeliveredMail(order: Order, shopUrl: string, shopName: string = SHOP_NAME): MailMessage {
  const user = customerOf(order);
  const base = baseUrl(shopUrl);
  const short = order.orderNumber;
  const url = orderUrl(order, shopUrl);
  const subject = `Your ${shopName} order ${short} has been delivered`;
  const deliveredOn = order.deliveredAt ? ` on ${nairobiDay(order.deliveredAt)}` : '';
  const reviewable = order.orderItems.some((item) => item._id !== null);
  const reviewLine = 'How do you like your purchase? Other shoppers would love to hear it: leave a review on the product page.';
  const a = order.shippingAddress;
  const place = `${a.ward}, ${a.sub_county}, ${a.county}`;
  const goodNews = `Good news: your order ${short} was delivered${deliveredOn} to ${place}.`;

  const text = [
    `Hello ${user.name},`,
    '',
    goodNews,
    '',
    'ITEMS',
    ...order.orderItems.map(
      (item) => `- ${itemName(item)} × ${item.qty}${item._id ? `\n  Review it: ${productUrl(item._id, shopUrl)}` : ''}`,
    ),
    '',
    `Total: ${formatKsh(order.totalPrice)}`,
    ...(reviewable ? ['', reviewLine] : []),
    '',
    `Your order: ${url}`,
    '',
    textFooter(base, shopName),
  ].join('\n');

  const html = renderMail(
    <Layout
      shopName={shopName}
      title={subject}
      preheader={`Order ${short} was delivered${deliveredOn}. We hope you enjoy it!`}
      shopUrl={base}
      reason={`You get this e-mail because your ${shopName} order was delivered.`}
    >
      <Heading>Your order has been delivered</Heading>
      <Para>
        <Muted>
          Order {short}
          {order.deliveredAt && ` · delivered on ${nairobiDay(order.deliveredAt)}`}
        </Muted>
      </Para>
      <Para style={{ marginTop: '18px' }}>Hello {user.name},</Para>
      <Para>{goodNews}</Para>
      {reviewable && <Notice accent={ACCENT}>{reviewLine}</Notice>}
      <Subheading>What you ordered</Subheading>
      <DeliveredItems order={order} shopUrl={shopUrl} />
      <LayoutTable
        width="100%"
        style={{ width: '100%', marginTop: '12px', fontFamily: FONT, fontSize: '16px', fontWeight: '700', color: TEXT }}
      >
        <tr>
          <td>Total</td>
          <td align="right">{formatKsh(order.totalPrice)}</td>
        </tr>
      </LayoutTable>
      <Button href={url} label="View your order" />
    </Layout>,
  );

  return { to: user.email, subject, text, html };
}
