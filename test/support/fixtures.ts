import { expect } from 'vitest';
import type { Order, ShippingAddress } from '../../src/shared/schemas/orders.js';
import type { Product, ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient, ErrorResponse } from './client.js';

export const NAIROBI_ADDRESS: ShippingAddress = {
  county: 'Nairobi',
  phoneNumber: '0711223344',
  postalCode: '00100',
  sub_county: 'Westlands',
  ward: 'Parklands/Highridge',
};

/** Creates a published product through the admin API, as the admin screens do: create a sample (a draft), then edit it. */
export async function createProduct(admin: ApiClient, fields: Partial<Omit<Product, '_id'>> = {}): Promise<Product> {
  const created = await admin.post<Product>('/api/products');
  expect(created.status).toBe(201);
  const updated = await admin.put<Product>(`/api/products/${created.body._id}`, {
    name: 'Test Product',
    price: 100,
    // A real name, price and image publish the created draft (a sample value keeps it a draft).
    image: '/images/hiking-backpack-40l.webp',
    countInStock: 10,
    category: 'Testing',
    description: 'A product made by a test',
    ...fields,
  });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  return updated.body;
}

export async function getProduct(client: ApiClient, id: string): Promise<Product> {
  const res = await client.get<Product>(`/api/products/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

export async function placeOrder(client: ApiClient, lines: { _id: string; qty: number }[], address = NAIROBI_ADDRESS) {
  return client.post<Order & ErrorResponse>('/api/orders', { orderItems: lines, shippingAddress: address });
}

export async function search(client: ApiClient, keyword: string, page = 1): Promise<ProductPage> {
  const res = await client.get<ProductPage>(`/api/products?keyword=${encodeURIComponent(keyword)}&pageNumber=${page}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Asserts the `{ errors: [{ msg }] }` shape with a 4xx status, optionally a message fragment. */
export function expectClientError(res: { status: number; body: unknown }, status: number, msg?: string | RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const body = res.body as ErrorResponse;
  expect(Array.isArray(body.errors), JSON.stringify(body)).toBe(true);
  expect(body.errors.length).toBeGreaterThan(0);
  for (const error of body.errors) expect(typeof error.msg).toBe('string');
  if (msg !== undefined) {
    const text = body.errors.map((e) => e.msg).join(' | ');
    if (typeof msg === 'string') expect(text).toContain(msg);
    else expect(text).toMatch(msg);
  }
}
