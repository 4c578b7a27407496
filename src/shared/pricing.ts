import { FREE_SHIPPING_ABOVE_KSH, SHIPPING_FEE_KSH, TAX_PERCENT } from './constants.js';
import { type Cents, fromCents, toCents } from './money.js';

export interface PricedLine {
  /** Unit price in Ksh. */
  price: number;
  qty: number;
}

export interface OrderTotals {
  itemsPrice: number;
  shippingPrice: number;
  taxPrice: number;
  totalPrice: number;
}

/**
 * The pricing rules of docs/product-rules.md (Constants): shipping is free above Ksh 5,000 of items,
 * otherwise Ksh 100; tax is 15% of the items; the total is their sum to 2 decimals.
 * The server prices every order with this function from its own product prices; the cart uses
 * it to show the same figures before the order is placed.
 */
export function orderTotals(lines: readonly PricedLine[]): OrderTotals {
  const itemsCents: Cents = lines.reduce((sum, line) => sum + toCents(line.price) * line.qty, 0);
  const shippingCents: Cents = itemsCents > toCents(FREE_SHIPPING_ABOVE_KSH) ? 0 : toCents(SHIPPING_FEE_KSH);
  const taxCents: Cents = Math.round((itemsCents * TAX_PERCENT) / 100);
  return {
    itemsPrice: fromCents(itemsCents),
    shippingPrice: fromCents(shippingCents),
    taxPrice: fromCents(taxCents),
    totalPrice: fromCents(itemsCents + shippingCents + taxCents),
  };
}
