import { z } from 'zod';
import { MAX_LINE_QTY, MAX_ORDER_LINES } from '../constants.js';
import { nairobiDayRange } from '../dates.js';
import { MSISDN_ERROR, normaliseMsisdn } from '../phone.js';
import { entityId, listKeyword, optionalPageNumber, requiredText } from './common.js';

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

const ADDRESS_LINE_MAX = 100;
const POSTAL_CODE = { min: 3, max: 10 };

export const shippingAddress = z.object({
  county: requiredText('County', ADDRESS_LINE_MAX),
  phoneNumber: digits('Phone Number', 9, 15),
  postalCode: digits('Postal Code', POSTAL_CODE.min, POSTAL_CODE.max),
  sub_county: requiredText('Sub County', ADDRESS_LINE_MAX),
  ward: requiredText('Ward', ADDRESS_LINE_MAX),
});
export type ShippingAddress = z.infer<typeof shippingAddress>;

/** A line of the address as the Shipping screen takes it: trimmed, may be empty. */
function addressLine(label: string) {
  return z
    .string()
    .trim()
    .max(ADDRESS_LINE_MAX, { error: `${label} must be at most ${ADDRESS_LINE_MAX} characters` });
}

const withoutSpaces = (value: string) => value.replace(/\s+/g, '');

/**
 * The Shipping screen's form (docs/product-rules.md, Validation): no field is required there (Place
 * Order sends an incomplete address back), but what is typed must be usable. The phone is a Kenyan
 * mobile number as M-Pesa takes it (src/shared/phone.ts), since the order's payment prompt starts
 * from it; it is kept as typed, without spaces. Stricter than `shippingAddress`, which the API keeps
 * as loose as the specification's own client needs.
 */
export const shippingAddressForm = z.object({
  county: addressLine('County'),
  phoneNumber: z
    .string()
    .max(20, { error: MSISDN_ERROR })
    .transform(withoutSpaces)
    .refine((value) => value === '' || normaliseMsisdn(value) !== null, { error: MSISDN_ERROR }),
  postalCode: z
    .string()
    .max(POSTAL_CODE.max + 4, { error: `Postal Code must be ${POSTAL_CODE.min} to ${POSTAL_CODE.max} digits` })
    .transform(withoutSpaces)
    .refine((value) => value === '' || new RegExp(`^\\d{${POSTAL_CODE.min},${POSTAL_CODE.max}}$`).test(value), {
      error: `Postal Code must be ${POSTAL_CODE.min} to ${POSTAL_CODE.max} digits`,
    }),
  sub_county: addressLine('Sub County'),
  ward: addressLine('Ward'),
});
export type ShippingAddressForm = z.input<typeof shippingAddressForm>;

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
  /** The variant bought, for a product sold in variants (docs/product-rules.md, Variants); null is none. */
  variantId: z.preprocess((v) => (v === null ? undefined : v), entityId.optional()),
});

export const createOrderBody = z.object({
  orderItems: z
    .array(orderItemInput, { error: 'Order items are required' })
    .min(1, { error: 'Your cart is empty' })
    .max(MAX_ORDER_LINES, { error: `An order can have at most ${MAX_ORDER_LINES} lines` }),
  shippingAddress: z.object(shippingAddress.shape, { error: 'Shipping address is required' }),
});
export type CreateOrderBody = z.infer<typeof createOrderBody>;

/** POST /api/orders's optional Idempotency-Key (IDEMPOTENCY_KEY_HEADER in ../constants.ts). */
export const placeOrderHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,128}$/, { error: 'Idempotency-Key must be 1 to 128 visible ASCII characters' })
    .optional(),
});

export const orderItem = z.object({
  /** The product id; null once the product has been deleted. */
  _id: z.string().nullable(),
  name: z.string(),
  image: z.string(),
  qty: z.number(),
  price: z.number(),
  /** Only on a line of a variant: its id, its description as sold ("Size 42 / Colour Black") and its SKU. */
  variantId: z.string().optional(),
  variant: z.string().optional(),
  sku: z.string().nullable().optional(),
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

/** A day (2026-11-25) or an instant (2026-11-25T08:00:00Z, with an offset or Z). */
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** 2026-02-30 is not a day: Date would roll it over to March, so the day must read back the same. */
function isRealDate(value: string): boolean {
  const time = Date.parse(DAY.test(value) ? `${value}T00:00:00Z` : value);
  return !Number.isNaN(time) && (!DAY.test(value) || new Date(time).toISOString().slice(0, 10) === value);
}

function isoDate(label: string) {
  return z
    .string({ error: `${label} must be a date (YYYY-MM-DD) or an ISO date-time` })
    .trim()
    .refine((v) => DAY.test(v) || z.iso.datetime({ offset: true }).safeParse(v).success, {
      error: `${label} must be a date (YYYY-MM-DD) or an ISO date-time`,
    })
    .refine(isRealDate, { error: `${label} is not a real date` })
    .optional();
}

const unknownParameter = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === 'unrecognized_keys' ? `Unknown parameter: ${(issue.keys ?? []).join(', ')}` : undefined,
};

/** The admin order list's filters, shared by the list and the CSV export. */
const orderFilters = {
  isPaid: optionalFlag,
  isDelivered: optionalFlag,
  from: isoDate('from'),
  to: isoDate('to'),
  /** An order id (or its first characters), or part of the shopper's name, email or phone. */
  keyword: listKeyword,
};
export type OrderFilters = { isPaid?: boolean; isDelivered?: boolean; from?: string; to?: string; keyword?: string };

const datesInOrder = (q: OrderFilters) => !q.from || !q.to || dayStart(q.from) < dayEnd(q.to);

/**
 * The admin order list's parameters. With none of them the list answers every order as a plain
 * array (the specification's answer); with any of them it answers one page, `{orders, page, pages}`.
 * Dates are Nairobi days, as the list shows them; `to` includes its whole day. Unknown names are refused.
 */
export const orderListQuery = z
  .strictObject({ pageNumber: optionalPageNumber, ...orderFilters }, unknownParameter)
  .refine(datesInOrder, { error: 'from must not be after to' });
export type OrderListQuery = z.infer<typeof orderListQuery>;

/** The order export's parameters: the list's filters, without a page (it answers every match). */
export const orderExportQuery = z
  .strictObject(orderFilters, unknownParameter)
  .refine(datesInOrder, { error: 'from must not be after to' });

/** The first instant of `from`: a day starts at 00:00 in Nairobi, the day the list shows. */
export function dayStart(value: string): Date {
  return DAY.test(value) ? nairobiDayRange(value).start : new Date(value);
}

/** The instant just after `to`: a day includes all of itself (to the next Nairobi midnight), an instant only itself. */
export function dayEnd(value: string): Date {
  return DAY.test(value) ? nairobiDayRange(value).end : new Date(Date.parse(value) + 1);
}

export const orderPage = z.object({ orders: z.array(order), page: z.number(), pages: z.number() });
export type OrderPage = z.infer<typeof orderPage>;
