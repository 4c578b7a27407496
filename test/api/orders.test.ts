import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, orderTotals } from '../../src/shared/pricing.js';
import type { Order, OrderPage } from '../../src/shared/schemas/orders.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, getProduct, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
});
afterAll(() => shop?.stop());

describe('placing an order', () => {
  it('prices the order on the server with the shipping and tax rules', async () => {
    const kettle = await createProduct(admin, { name: 'Kettle', price: 1499.5, countInStock: 10 });
    const tea = await createProduct(admin, { name: 'Tea', price: 249.99, countInStock: 10 });
    const shopper = await shop.shopper('Njoki');
    const res = await placeOrder(shopper, [
      { _id: kettle._id, qty: 2 },
      { _id: tea._id, qty: 3 },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const order = res.body;
    // 2 × 1499.50 + 3 × 249.99 = 3748.97; shipping 100 (not above 5000); tax 15% = 562.35.
    expect(order).toMatchObject({
      itemsPrice: 3748.97,
      shippingPrice: 100,
      taxPrice: 562.35,
      totalPrice: 4411.32,
      isPaid: false,
      paidAt: null,
      isDelivered: false,
      deliveredAt: null,
      paymentMethod: 'MPESA',
      shippingAddress: NAIROBI_ADDRESS,
      user: { _id: shopper.user!._id, name: 'Njoki', email: shopper.user!.email },
    });
    expect(order.orderItems).toEqual([
      { _id: kettle._id, name: 'Kettle', image: kettle.image, qty: 2, price: 1499.5 },
      { _id: tea._id, name: 'Tea', image: tea.image, qty: 3, price: 249.99 },
    ]);
    expect(order._id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await getProduct(shopper, kettle._id)).countInStock).toBe(8);
    expect((await getProduct(shopper, tea._id)).countInStock).toBe(7);
  });

  it('ships free above Ksh 5,000 of items', async () => {
    const tv = await createProduct(admin, { price: 5000.01, countInStock: 3 });
    const shopper = await shop.shopper();
    const res = await placeOrder(shopper, [{ _id: tv._id, qty: 1 }]);
    expect(res.body).toMatchObject({ itemsPrice: 5000.01, shippingPrice: 0, taxPrice: 750, totalPrice: 5750.01 });
    expect(orderTotals([{ price: 5000, qty: 1 }], DEFAULT_PRICING).shippingPrice).toBe(100);
  });

  it('ignores prices, names and totals sent by the client', async () => {
    const phone = await createProduct(admin, { name: 'Real Phone', price: 15999, countInStock: 5 });
    const shopper = await shop.shopper();
    const res = await shopper.post<Order>('/api/orders', {
      orderItems: [{ _id: phone._id, qty: 1, price: 1, name: 'Free Phone', image: '/evil.png' }],
      shippingAddress: NAIROBI_ADDRESS,
      itemsPrice: 1,
      shippingPrice: 0,
      taxPrice: 0,
      totalPrice: 1,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ itemsPrice: 15999, shippingPrice: 0, taxPrice: 2399.85, totalPrice: 18398.85 });
    expect(res.body.orderItems[0]).toMatchObject({ name: 'Real Phone', price: 15999, image: phone.image });
  });

  it('keeps phone and postal code as digit strings, leading zeros included', async () => {
    const p = await createProduct(admin, { countInStock: 5 });
    const shopper = await shop.shopper();
    const res = await placeOrder(shopper, [{ _id: p._id, qty: 1 }], {
      ...NAIROBI_ADDRESS,
      postalCode: '00100',
      phoneNumber: '0722000111',
    });
    expect(res.body.shippingAddress).toMatchObject({ postalCode: '00100', phoneNumber: '0722000111' });
  });

  it('merges two lines of the same product and checks them against the stock together', async () => {
    const p = await createProduct(admin, { countInStock: 3 });
    const shopper = await shop.shopper();
    expectClientError(
      await placeOrder(shopper, [
        { _id: p._id, qty: 2 },
        { _id: p._id, qty: 2 },
      ]),
      400,
      'Only 3',
    );
    const ok = await placeOrder(shopper, [
      { _id: p._id, qty: 1 },
      { _id: p._id, qty: 2 },
    ]);
    expect(ok.status).toBe(201);
    expect(ok.body.orderItems).toEqual([expect.objectContaining({ qty: 3 })]);
    expect((await getProduct(shopper, p._id)).countInStock).toBe(0);
  });

  it.each([
    ['an empty cart', { orderItems: [], shippingAddress: NAIROBI_ADDRESS }, 'Your cart is empty'],
    ['no items', { shippingAddress: NAIROBI_ADDRESS }, 'Order items are required'],
    ['no address', { orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 1 }] }, 'Shipping address is required'],
    [
      'a missing county',
      {
        orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 1 }],
        shippingAddress: { ...NAIROBI_ADDRESS, county: '' },
      },
      'County is required',
    ],
    [
      'a missing ward',
      {
        orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 1 }],
        shippingAddress: { ...NAIROBI_ADDRESS, ward: undefined },
      },
      'Ward is required',
    ],
    [
      'a missing sub county',
      {
        orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 1 }],
        shippingAddress: { ...NAIROBI_ADDRESS, sub_county: ' ' },
      },
      'Sub County is required',
    ],
    [
      'letters in the phone',
      {
        orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 1 }],
        shippingAddress: { ...NAIROBI_ADDRESS, phoneNumber: '07ab' },
      },
      'Phone Number',
    ],
    [
      'letters in the postal code',
      {
        orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 1 }],
        shippingAddress: { ...NAIROBI_ADDRESS, postalCode: 'ABC' },
      },
      'Postal Code',
    ],
    [
      'a zero quantity',
      { orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 0 }], shippingAddress: NAIROBI_ADDRESS },
      'at least 1',
    ],
    [
      'a negative quantity',
      { orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: -2 }], shippingAddress: NAIROBI_ADDRESS },
      'at least 1',
    ],
    [
      'a fractional quantity',
      { orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 1.5 }], shippingAddress: NAIROBI_ADDRESS },
      'whole number',
    ],
    ['a malformed product id', { orderItems: [{ _id: 'abc', qty: 1 }], shippingAddress: NAIROBI_ADDRESS }, 'Not a valid id'],
    [
      'an unknown product',
      { orderItems: [{ _id: '00000000-0000-4000-8000-000000000000', qty: 1 }], shippingAddress: NAIROBI_ADDRESS },
      'no longer available',
    ],
  ])(
    'refuses %s with a 400 and takes no stock',
    async (_label, body: { orderItems?: unknown[]; shippingAddress?: unknown }, msg) => {
      const p = await createProduct(admin, { countInStock: 4 });
      const shopper = await shop.shopper();
      expectClientError(await shopper.post('/api/orders', body), 400, msg);
      // An order mixing a good line with a bad one takes nothing either.
      if (Array.isArray(body.orderItems) && body.orderItems.length > 0 && body.shippingAddress) {
        const mixed = await shopper.post('/api/orders', { ...body, orderItems: [{ _id: p._id, qty: 2 }, ...body.orderItems] });
        expect(mixed.status).toBe(400);
      }
      expect((await getProduct(shopper, p._id)).countInStock).toBe(4);
      expect((await shopper.get<Order[]>('/api/orders/myorders')).body).toEqual([]);
    },
  );

  it('refuses more than the stock, and out-of-stock products, with clear messages', async () => {
    const few = await createProduct(admin, { name: 'Scarce Lamp', countInStock: 2 });
    const none = await createProduct(admin, { name: 'Sold Out Radio', countInStock: 0 });
    const shopper = await shop.shopper();
    expectClientError(await placeOrder(shopper, [{ _id: few._id, qty: 3 }]), 400, 'Only 2 of Scarce Lamp left in stock');
    expectClientError(await placeOrder(shopper, [{ _id: none._id, qty: 1 }]), 400, 'Sold Out Radio is out of stock');
    expect((await getProduct(shopper, few._id)).countInStock).toBe(2);
  });

  it('never sells more than the stock when many shoppers order at once', async () => {
    const p = await createProduct(admin, { name: 'Last Few Sufurias', countInStock: 5 });
    const shoppers = await Promise.all(Array.from({ length: 20 }, (_, i) => shop.shopper(`Racer ${i}`)));
    const results = await Promise.all(shoppers.map((s) => placeOrder(s, [{ _id: p._id, qty: 1 }])));
    const placed = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(placed).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) expectClientError(r, 400, /out of stock|left in stock/);
    expect((await getProduct(admin, p._id)).countInStock).toBe(0);
    const all = (await admin.get<Order[]>('/api/orders')).body;
    const sold = all
      .flatMap((o) => o.orderItems)
      .filter((i) => i._id === p._id)
      .reduce((n, i) => n + i.qty, 0);
    expect(sold).toBe(5);
  });

  it('refuses guests', async () => {
    const p = await createProduct(admin);
    expectClientError(await placeOrder(shop.client(), [{ _id: p._id, qty: 1 }]), 401);
  });
});

describe('placing an order again with the same Idempotency-Key', () => {
  const orderWithKey = (shopper: ApiClient, productId: string, key: string, qty = 1) =>
    shopper.request<Order>('POST', '/api/orders', {
      json: { orderItems: [{ _id: productId, qty }], shippingAddress: NAIROBI_ADDRESS },
      headers: { 'Idempotency-Key': key },
    });

  it('answers the order the first request placed, and takes the stock once', async () => {
    const product = await createProduct(admin, { price: 300, countInStock: 10 });
    const shopper = await shop.shopper();
    const first = await orderWithKey(shopper, product._id, 'checkout-7f3a');
    expect(first.status).toBe(201);
    // The repeat comes back with the first answer, even with another body: it is the same checkout.
    const again = await orderWithKey(shopper, product._id, 'checkout-7f3a', 3);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await getProduct(admin, product._id)).countInStock).toBe(9);
    expect((await shopper.get<Order[]>('/api/orders/myorders')).body.map((o) => o._id)).toEqual([first.body._id]);
    // Another key is another order.
    const other = await orderWithKey(shopper, product._id, 'checkout-91bc');
    expect(other.body._id).not.toBe(first.body._id);
    expect((await getProduct(admin, product._id)).countInStock).toBe(8);
  });

  it('places one order when the same key arrives many times at once', async () => {
    const product = await createProduct(admin, { price: 120, countInStock: 50 });
    const shopper = await shop.shopper();
    const answers = await Promise.all(Array.from({ length: 8 }, () => orderWithKey(shopper, product._id, 'double-tap')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((answer) => answer.body._id)).size).toBe(1);
    expect((await getProduct(admin, product._id)).countInStock).toBe(49);
    expect((await shopper.get<Order[]>('/api/orders/myorders')).body).toHaveLength(1);
  });

  it("keeps each shopper's keys their own", async () => {
    const product = await createProduct(admin, { price: 75, countInStock: 10 });
    const [amina, baraka] = await Promise.all([shop.shopper('Amina'), shop.shopper('Baraka')]);
    const hers = await orderWithKey(amina, product._id, 'same-key');
    const his = await orderWithKey(baraka, product._id, 'same-key');
    expect([hers.status, his.status]).toEqual([201, 201]);
    expect(his.body._id).not.toBe(hers.body._id);
    expect(his.body.user?.name).toBe('Baraka');
    expect((await getProduct(admin, product._id)).countInStock).toBe(8);
  });

  it('refuses a key that is empty, too long or not plain ASCII, and places nothing', async () => {
    const product = await createProduct(admin, { price: 75, countInStock: 10 });
    const shopper = await shop.shopper();
    for (const key of ['', 'k'.repeat(129), 'ufunguo wa siri', 'café']) {
      expectClientError(
        await orderWithKey(shopper, product._id, key),
        400,
        /Idempotency-Key must be 1 to 128 visible ASCII characters/,
      );
    }
    expect((await getProduct(admin, product._id)).countInStock).toBe(10);
  });
});

describe('order numbers', () => {
  it('gives every order a short number to read aloud and pay with: 8 characters, no 0/O or 1/I, unique, the same everywhere', async () => {
    const shopper = await shop.shopper();
    const product = await createProduct(admin, { price: 120, countInStock: 100 });
    const numbers = new Map<string, string>();
    for (let i = 0; i < 25; i++) {
      const placed = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
      expect(placed.status).toBe(201);
      expect(placed.body.orderNumber).toMatch(/^[2-9A-HJ-NP-Z]{8}$/);
      numbers.set(placed.body._id, placed.body.orderNumber);
    }
    expect(new Set(numbers.values()).size).toBe(25);
    const [someId, someNumber] = [...numbers][0]!;
    expect((await shopper.get<Order>(`/api/orders/${someId}`)).body.orderNumber).toBe(someNumber);
    const mine = await shopper.get<Order[]>('/api/orders/myorders');
    for (const order of mine.body) expect(order.orderNumber).toBe(numbers.get(order._id));
    const all = await admin.get<Order[]>('/api/orders');
    expect(all.body.find((order) => order._id === someId)?.orderNumber).toBe(someNumber);
  });

  it('is kept unique by the database itself', async () => {
    const shopper = await shop.shopper();
    const product = await createProduct(admin, { price: 80, countInStock: 10 });
    const first = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body;
    const second = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body;
    const duplicate = await shop.database.db
      .execute(sql`UPDATE orders SET number = ${first.orderNumber} WHERE id = ${second._id}`)
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(String(duplicate?.cause)).toMatch(/orders_number_idx/);
  });
});

describe('reading orders', () => {
  it('answers [] for a shopper with no orders, and their own orders newest first', async () => {
    const shopper = await shop.shopper();
    const empty = await shopper.get<Order[]>('/api/orders/myorders');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    const p = await createProduct(admin, { countInStock: 10 });
    const first = (await placeOrder(shopper, [{ _id: p._id, qty: 1 }])).body;
    const second = (await placeOrder(shopper, [{ _id: p._id, qty: 2 }])).body;
    const mine = (await shopper.get<Order[]>('/api/orders/myorders')).body;
    expect(mine.map((o) => o._id)).toEqual([second._id, first._id]);
  });

  it('shows an order to its owner and admins; to anyone else it does not exist', async () => {
    const owner = await shop.shopper();
    const other = await shop.shopper();
    const p = await createProduct(admin, { countInStock: 10 });
    const order = (await placeOrder(owner, [{ _id: p._id, qty: 1 }])).body;
    expect((await owner.get<Order>(`/api/orders/${order._id}`)).body._id).toBe(order._id);
    expect((await admin.get<Order>(`/api/orders/${order._id}`)).body._id).toBe(order._id);
    expectClientError(await other.get(`/api/orders/${order._id}`), 404, 'Order not found');
    expectClientError(await shop.client().get(`/api/orders/${order._id}`), 401);
    expectClientError(await owner.get('/api/orders/00000000-0000-4000-8000-000000000000'), 404);
    expectClientError(await owner.get('/api/orders/12345'), 400);
  });

  it('lists all orders for admins only, with filters', async () => {
    const shopper = await shop.shopper();
    expectClientError(await shopper.get('/api/orders'), 403);
    const p = await createProduct(admin, { countInStock: 10 });
    const order = (await placeOrder(shopper, [{ _id: p._id, qty: 1 }])).body;
    const all = (await admin.get<Order[]>('/api/orders')).body;
    expect(all.map((o) => o._id)).toContain(order._id);
    expect(all.find((o) => o._id === order._id)!.user).toMatchObject({ name: shopper.user!.name });
    const unpaid = (await admin.get<OrderPage>('/api/orders?isPaid=false')).body.orders;
    expect(unpaid.every((o) => !o.isPaid)).toBe(true);
    expect(unpaid.map((o) => o._id)).toContain(order._id);
    await admin.put(`/api/orders/${order._id}`);
    const paid = (await admin.get<OrderPage>('/api/orders?isPaid=true&isDelivered=false')).body.orders;
    expect(paid.map((o) => o._id)).toContain(order._id);
    expect(paid.every((o) => o.isPaid && !o.isDelivered)).toBe(true);
    expectClientError(await admin.get('/api/orders?isPaid=maybe'), 400);
  });
});

describe('fulfilment', () => {
  it('marks an order paid and delivered, setting the dates, once each', async () => {
    const shopper = await shop.shopper();
    const p = await createProduct(admin, { countInStock: 10 });
    const order = (await placeOrder(shopper, [{ _id: p._id, qty: 1 }])).body;
    expectClientError(await shopper.put(`/api/orders/${order._id}`), 403);
    expectClientError(await shopper.put(`/api/orders/${order._id}/deliver`), 403);

    const paid = await admin.put<Order>(`/api/orders/${order._id}`);
    expect(paid.status).toBe(200);
    expect(paid.body.isPaid).toBe(true);
    expect(Date.parse(paid.body.paidAt!)).toBeGreaterThan(Date.parse(order.createdAt) - 1000);
    expectClientError(await admin.put(`/api/orders/${order._id}`), 400, 'already paid');

    const delivered = await admin.put<Order>(`/api/orders/${order._id}/deliver`);
    expect(delivered.body).toMatchObject({ isDelivered: true, isPaid: true });
    expect(delivered.body.deliveredAt).not.toBeNull();
    expectClientError(await admin.put(`/api/orders/${order._id}/deliver`), 400, 'already delivered');

    const seen = (await shopper.get<Order>(`/api/orders/${order._id}`)).body;
    expect(seen).toMatchObject({ isPaid: true, isDelivered: true, paidAt: paid.body.paidAt });
    expectClientError(await admin.put('/api/orders/00000000-0000-4000-8000-000000000000'), 404);
    expectClientError(await admin.put('/api/orders/00000000-0000-4000-8000-000000000000/deliver'), 404);
  });

  it('deleting an undelivered order returns its stock; a delivered one does not', async () => {
    const shopper = await shop.shopper();
    const p = await createProduct(admin, { countInStock: 10 });
    const undelivered = (await placeOrder(shopper, [{ _id: p._id, qty: 3 }])).body;
    const delivered = (await placeOrder(shopper, [{ _id: p._id, qty: 2 }])).body;
    await admin.put(`/api/orders/${delivered._id}/deliver`);
    expect((await getProduct(admin, p._id)).countInStock).toBe(5);

    expectClientError(await shopper.delete(`/api/orders/${undelivered._id}`), 403);
    const res = await admin.delete<{ msg: string }>(`/api/orders/${undelivered._id}`);
    expect(res.status).toBe(200);
    expect(res.body.msg).toBe('Order deleted');
    expect((await getProduct(admin, p._id)).countInStock).toBe(8);
    await admin.delete(`/api/orders/${delivered._id}`);
    expect((await getProduct(admin, p._id)).countInStock).toBe(8);
    expectClientError(await admin.delete(`/api/orders/${undelivered._id}`), 404);
  });

  it('keeps an order readable after its product is deleted', async () => {
    const shopper = await shop.shopper();
    const p = await createProduct(admin, { name: 'Discontinued Fan', countInStock: 2 });
    const order = (await placeOrder(shopper, [{ _id: p._id, qty: 1 }])).body;
    await admin.delete(`/api/products/${p._id}`);
    const after = (await shopper.get<Order>(`/api/orders/${order._id}`)).body;
    expect(after.orderItems[0]).toMatchObject({ _id: null, name: 'Discontinued Fan', qty: 1 });
    expect(after.totalPrice).toBe(order.totalPrice);
  });
});
