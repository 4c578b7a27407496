import { formatKsh, fromCents, toCents } from '../../../shared/money.js';
import type { Order } from '../../../shared/schemas/orders.js';
import { nameWithVariant } from '../../../shared/variant-names.js';

/** The facts the mails share, and the pieces of their plain-text versions. */

/** Label/value rows, as a mail lists its facts. */
export type Pairs = [string, string][];

/** Trailing slashes off, so `${base}/order/…` never has two. */
export function baseUrl(shopUrl: string): string {
  return shopUrl.replace(/\/+$/, '');
}

export function orderUrl(order: Order, shopUrl: string): string {
  return `${baseUrl(shopUrl)}/order/${encodeURIComponent(order._id)}`;
}

export function productUrl(productId: string, shopUrl: string): string {
  return `${baseUrl(shopUrl)}/products/${encodeURIComponent(productId)}`;
}

/** A line's name, with its variant after it: "Court Sneaker (Size 42 / Black)". */
export function itemName(item: Order['orderItems'][number]): string {
  return nameWithVariant(item.name, item.variant);
}

/** Quantity × unit price, summed in cents so it never drifts. */
export function lineTotal(item: Order['orderItems'][number]): number {
  return fromCents(toCents(item.price) * item.qty);
}

/** M-Pesa charges whole shillings: the total rounded up, as the payment prompt asks for. */
export function mpesaAmount(order: Order): number {
  return Math.ceil(toCents(order.totalPrice) / 100);
}

export function customerOf(order: Order): NonNullable<Order['user']> {
  if (!order.user) throw new Error(`Order ${order._id} has no customer to mail`);
  return order.user;
}

export function summaryRows(order: Order): Pairs {
  return [
    ['Items', formatKsh(order.itemsPrice)],
    ['Shipping', formatKsh(order.shippingPrice)],
    ['Tax', formatKsh(order.taxPrice)],
    ['Total', formatKsh(order.totalPrice)],
  ];
}

export function addressRows(order: Order): Pairs {
  const a = order.shippingAddress;
  return [
    ['County', a.county],
    ['Sub county', a.sub_county],
    ['Ward', a.ward],
    ['Postal code', a.postalCode],
    ['Phone', a.phoneNumber],
  ];
}

/** The footer line of the merchant's alerts. */
export function merchantAlertReason(shopName: string): string {
  return `You get this e-mail because this address receives ${shopName}'s merchant alerts (admin settings).`;
}

// ---------------------------------------------------------------------------------------------
// Plain text pieces

export function textFooter(shopUrl: string | undefined, shopName: string): string {
  return ['--', shopUrl ? `${shopName} · ${shopUrl}` : shopName].join('\n');
}

/** Label/value lines with the values lined up. */
export function textPairs(rows: Pairs): string {
  const width = Math.max(...rows.map(([label]) => label.length)) + 1;
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 1)}${value}`).join('\n');
}

export function textItems(order: Order): string {
  return order.orderItems
    .map((item) => `- ${itemName(item)}\n  ${item.qty} × ${formatKsh(item.price)} = ${formatKsh(lineTotal(item))}`)
    .join('\n');
}
