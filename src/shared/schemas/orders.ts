import { z } from 'zod';
import { MAX_LINE_QTY, MAX_ORDER_LINES } from '../constants.js';
import { entityId, requiredText } from './common.js';

/** Phone and postal code stay digit strings, so "00100" keeps its zeros. */
function digits(label: string, min: number, max: number) {
  return z.preprocess(
    (v) =>
      typeof v === 'number' && Number.isInteger(v) && v >= 0 ? String(v) : typeof v === 'string' ? v.replace(/\s+/g, '') : v,
    z
      .string({ error: `${label} is required` })
      .min(1, { error: `${label} is required` })
      .regex(new RegExp(`^\\+?\\d{${min},${max}}$`), { error: `${label} must be ${min} to ${max} digits` }),
  );
}

export const shippingAddress = z.object({
  county: requiredText('County', 100),
  phoneNumber: digits('Phone Number', 9, 15),
  postalCode: digits('Postal Code', 3, 10),
  sub_county: requiredText('Sub County', 100),
  ward: requiredText('Ward', 100),
});
export type ShippingAddress = z.infer<typeof shippingAddress>;

/** What the client sends per line; prices and names it sends are ignored by the server. */
export const orderItemInput = z.object({
  _id: entityId,
  qty: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
    z
      .number({ error: 'Quantity must be a whole number' })
      .int({ error: 'Quantity must be a whole number' })
      .min(1, { error: 'Quantity must be at least 1' })
      .max(MAX_LINE_QTY, { error: `Quantity must be at most ${MAX_LINE_QTY}` }),
  ),
});

export const createOrderBody = z.object({
  orderItems: z
    .array(orderItemInput, { error: 'Order items are required' })
    .min(1, { error: 'Your cart is empty' })
    .max(MAX_ORDER_LINES, { error: `An order can have at most ${MAX_ORDER_LINES} lines` }),
  shippingAddress: z.object(shippingAddress.shape, { error: 'Shipping address is required' }),
});
export type CreateOrderBody = z.infer<typeof createOrderBody>;

export const orderItem = z.object({
  /** The product id; null once the product has been deleted. */
  _id: z.string().nullable(),
  name: z.string(),
  image: z.string(),
  qty: z.number(),
  price: z.number(),
});

/** The address as stored and answered: plain strings, nothing to coerce on the way out. */
export const storedShippingAddress = z.object({
  county: z.string(),
  phoneNumber: z.string(),
  postalCode: z.string(),
  sub_county: z.string(),
  ward: z.string(),
});

export const order = z.object({
  _id: z.string(),
  /** The short number shown to people and typed into M-Pesa (see src/shared/order-number.ts). */
  orderNumber: z.string(),
  user: z.object({ _id: z.string(), name: z.string(), email: z.string() }).nullable(),
  orderItems: z.array(orderItem),
  shippingAddress: storedShippingAddress,
  paymentMethod: z.string(),
  itemsPrice: z.number(),
  shippingPrice: z.number(),
  taxPrice: z.number(),
  totalPrice: z.number(),
  isPaid: z.boolean(),
  paidAt: z.string().nullable(),
  /** The M-Pesa receipt of the payment, when M-Pesa reported one. */
  mpesaReceipt: z.string().nullable(),
  isDelivered: z.boolean(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Order = z.infer<typeof order>;

const optionalFlag = z.preprocess(
  (v) => (v === 'true' ? true : v === 'false' ? false : v),
  z.boolean({ error: 'Use true or false' }).optional(),
);

/** Admin order list filters (beyond the specification: a shop owner wants to see what is unpaid). */
export const orderListQuery = z.object({ isPaid: optionalFlag, isDelivered: optionalFlag });
