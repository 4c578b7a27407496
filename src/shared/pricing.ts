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

/** The settings that price an order (docs/settings.md), in Ksh and percent. */
export interface PricingSettings {
  /** Percent of the items, at most 2 decimals. */
  taxPercent: number;
  /** Shipping when the items come to the threshold or less. */
  shippingFee: number;
  /** Shipping is free when the items come to more than this. */
  freeShippingThreshold: number;
}

/** What a new shop charges (docs/product-rules.md, Constants): Ksh 100 shipping, free above Ksh 5,000; 15% tax. */
export const DEFAULT_PRICING: PricingSettings = { taxPercent: 15, shippingFee: 100, freeShippingThreshold: 5000 };

/**
 * The pricing rules: shipping is free when the items come to more than the threshold, otherwise
 * the fee; tax is the percentage of the items; the total is their sum to 2 decimals. The server
 * prices every order with this function, from its own product prices and the settings read in the
 * order's transaction; the cart uses it with the settings the shop publishes, to show the same
 * figures before the order is placed.
 */
export function orderTotals(lines: readonly PricedLine[], pricing: PricingSettings): OrderTotals {
  const itemsCents: Cents = lines.reduce((sum, line) => sum + toCents(line.price) * line.qty, 0);
  const shippingCents: Cents = itemsCents > toCents(pricing.freeShippingThreshold) ? 0 : toCents(pricing.shippingFee);
  // In basis points, so a rate such as 16.5% multiplies as a whole number.
  const taxCents: Cents = Math.round((itemsCents * Math.round(pricing.taxPercent * 100)) / 10_000);
  return {
    itemsPrice: fromCents(itemsCents),
    shippingPrice: fromCents(shippingCents),
    taxPrice: fromCents(taxCents),
    totalPrice: fromCents(itemsCents + shippingCents + taxCents),
  };
}
