import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetTokenFrom, waitForMail } from '../support/outbox.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestShop, type TestShop } from '../support/shop.js';

/**
 * The specification's own client, making the calls of docs/product-rules.md (API) as it does, against the real server over HTTP.
 * It is not Duka's web app: it sends what that client sends and reads what it reads.
 *
 * - Its HTTP client behaves as axios does in a browser on the shop's origin: the browser keeps
 *   the cookies, axios echoes the XSRF-TOKEN cookie in X-XSRF-TOKEN only when the cookie exists
 *   (never fetching a page first to get one), and the browser adds Sec-Fetch-Site and, on unsafe
 *   requests, Origin.
 * - Its payloads carry what it has: cart lines as whole product objects with qty, its own
 *   itemsPrice … totalPrice, the payment prompt as { phoneNumber, Amount } with the order's
 *   total as it shows it, and the admin edits as form data, numbers as text.
 * - Every call of the API is made from a fresh session onwards, and its answer checked for the fields
 *   the client reads (listing cards read product.reviews.length).
 */

type Json = Record<string, unknown>;

interface Answer<T> {
  status: number;
  data: T;
}

/** The API calls, to check at the end that every one was made and answered 2xx. */
const SPEC_CALLS: [string, RegExp][] = [
  ['POST /api/products', /^POST \/api\/products$/],
  ['GET /api/products?pageNumber&keyword', /^GET \/api\/products\?pageNumber=\d+&keyword=/],
  ['GET /api/products/{id}', /^GET \/api\/products\/[0-9a-f-]{36}$/],
  ['PUT /api/products/{id}', /^PUT \/api\/products\/[0-9a-f-]{36}$/],
  ['DELETE /api/products/{id}', /^DELETE \/api\/products\/[0-9a-f-]{36}$/],
  ['GET /api/products/top', /^GET \/api\/products\/top$/],
  ['POST /api/products/{id}/reviews', /^POST \/api\/products\/[0-9a-f-]{36}\/reviews$/],
  ['DELETE /api/products/{productId}/{reviewId}', /^DELETE \/api\/products\/[0-9a-f-]{36}\/[0-9a-f-]{36}$/],
  ['POST /api/uploads', /^POST \/api\/uploads$/],
  ['POST /api/users', /^POST \/api\/users$/],
  ['POST /api/users/auth', /^POST \/api\/users\/auth$/],
  ['GET /api/users/{id}', /^GET \/api\/users\/([0-9a-f-]{36}|profile)$/],
  ['PUT /api/users/profile', /^PUT \/api\/users\/profile$/],
  ['GET /api/users', /^GET \/api\/users$/],
  ['POST /api/users/logout', /^POST \/api\/users\/logout$/],
  ['DELETE /api/users/{id}', /^DELETE \/api\/users\/[0-9a-f-]{36}$/],
  ['POST /api/users/reset-password/{token}', /^POST \/api\/users\/reset-password\/[\w-]+$/],
  ['POST /api/users/forgot-password', /^POST \/api\/users\/forgot-password$/],
  ['PUT /api/users/{id}', /^PUT \/api\/users\/[0-9a-f-]{36}$/],
  ['POST /api/orders', /^POST \/api\/orders$/],
  ['GET /api/orders/myorders', /^GET \/api\/orders\/myorders$/],
  ['GET /api/orders', /^GET \/api\/orders$/],
  ['GET /api/orders/{id}', /^GET \/api\/orders\/[0-9a-f-]{36}$/],
  ['DELETE /api/orders/{id}', /^DELETE \/api\/orders\/[0-9a-f-]{36}$/],
  ['PUT /api/orders/{id}', /^PUT \/api\/orders\/[0-9a-f-]{36}$/],
  ['PUT /api/orders/{id}/deliver', /^PUT \/api\/orders\/[0-9a-f-]{36}\/deliver$/],
  ['POST /api/orders/stkpush', /^POST \/api\/orders\/stkpush$/],
];

/** Every request any spec client made, with its status, and whether it carried the XSRF header. */
const made: { line: string; status: number; sentToken: boolean }[] = [];

/** A browser tab of the specification's client: its cookie jar, and axios's defaults. */
class SpecClient {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly origin: string) {}

  hasCookie(name: string): boolean {
    return this.cookies.has(name);
  }

  async request<T = Json>(method: string, path: string, data?: Json | FormData): Promise<Answer<T>> {
    const headers: Record<string, string> = {
      accept: 'application/json, text/plain, */*',
      // What the browser adds to a fetch from one of the shop's pages.
      'sec-fetch-site': 'same-origin',
      'sec-fetch-mode': 'cors',
      'sec-fetch-dest': 'empty',
    };
    if (method !== 'GET' && method !== 'HEAD') headers.origin = this.origin;
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    // axios: xsrfCookieName XSRF-TOKEN, xsrfHeaderName X-XSRF-TOKEN, set only when the cookie exists.
    const token = this.cookies.get('XSRF-TOKEN');
    if (token) headers['x-xsrf-token'] = token;
    let body: BodyInit | undefined;
    if (data instanceof FormData)
      body = data; // the browser writes the multipart boundary
    else if (data !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(data);
    }
    const response = await fetch(this.origin + path, { method, headers, body: body ?? null, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      if (value === '' || /expires=Thu, 01 Jan 1970|max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('application/json') && text ? JSON.parse(text) : text;
    made.push({ line: `${method} ${path}`, status: response.status, sentToken: token !== undefined });
    return { status: response.status, data: json as T };
  }

  get<T = Json>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = Json>(path: string, data?: Json | FormData) {
    return this.request<T>('POST', path, data);
  }
  put<T = Json>(path: string, data?: Json | FormData) {
    return this.request<T>('PUT', path, data);
  }
  delete<T = Json>(path: string) {
    return this.request<T>('DELETE', path);
  }
}

/** What the client reads from a failure (docs/product-rules.md, Errors): a list of errors, each with a msg. */
function expectErrors(answer: Answer<unknown>, status: number, msg: RegExp) {
  expect(answer.status, JSON.stringify(answer.data)).toBe(status);
  const errors = (answer.data as { errors: { msg: string }[] }).errors;
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.map((e) => e.msg).join(' | ')).toMatch(msg);
}

function expectOk<T>(answer: Answer<T>, status = 200): T {
  expect(answer.status, JSON.stringify(answer.data)).toBe(status);
  return answer.data;
}

/** What a product card and the carousel read: the Product of docs/product-rules.md (Data), reviews included as a list. */
interface ListedProduct {
  _id: string;
  name: string;
  image: string;
  price: number;
  description: string;
  category: string;
  countInStock: number;
  rating: number;
  numReviews: number;
  reviews: { _id: string; name: string; rating: number }[];
}
interface Review {
  _id: string;
  name: string;
  rating: number;
  comment: string;
  user: string;
}
interface ProductDetail extends ListedProduct {
  reviews: Review[];
}
interface User {
  _id: string;
  name: string;
  email: string;
  isAdmin: boolean;
}
interface Order {
  _id: string;
  user: { name: string; email: string };
  orderItems: { _id: string; name: string; image: string; qty: number; price: number }[];
  shippingAddress: Json;
  itemsPrice: number;
  shippingPrice: number;
  taxPrice: number;
  totalPrice: number;
  isPaid: boolean;
  paidAt: string | null;
  isDelivered: boolean;
  deliveredAt: string | null;
  createdAt: string;
}

const cardShape = {
  _id: expect.any(String),
  name: expect.any(String),
  image: expect.any(String),
  price: expect.any(Number),
  rating: expect.any(Number),
  countInStock: expect.any(Number),
  reviews: expect.any(Array),
};

/** A listing card renders `product.reviews.length` reviews and the stars of `product.rating`. */
function expectCards(products: ListedProduct[]) {
  for (const product of products) {
    expect(product).toMatchObject(cardShape);
    expect(product.reviews.length, product.name).toBe(product.numReviews);
    for (const review of product.reviews) {
      expect(review).toMatchObject({ _id: expect.any(String), name: expect.any(String), rating: expect.any(Number) });
    }
  }
}

const userShape = { _id: expect.any(String), name: expect.any(String), email: expect.any(String), isAdmin: expect.any(Boolean) };

const orderShape = {
  _id: expect.any(String),
  user: { name: expect.any(String), email: expect.any(String) },
  orderItems: expect.any(Array),
  shippingAddress: {
    county: expect.any(String),
    phoneNumber: expect.any(String),
    postalCode: expect.any(String),
    sub_county: expect.any(String),
    ward: expect.any(String),
  },
  itemsPrice: expect.any(Number),
  shippingPrice: expect.any(Number),
  taxPrice: expect.any(Number),
  totalPrice: expect.any(Number),
  isPaid: expect.any(Boolean),
  isDelivered: expect.any(Boolean),
  createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}/),
};

/** The cart (docs/product-rules.md, Data and States) with the pricing rules (Constants), computed by the client as it does. */
function cartFor(lines: { product: ProductDetail; qty: number }[]) {
  const round2 = (n: number) => Math.round(n * 100) / 100;
  const cartItems = lines.map(({ product, qty }) => ({
    _id: product._id,
    image: product.image,
    name: product.name,
    rating: product.rating,
    price: product.price,
    description: product.description,
    countInStock: product.countInStock,
    qty,
  }));
  const itemsPrice = round2(cartItems.reduce((sum, item) => sum + item.price * item.qty, 0));
  const shippingPrice = itemsPrice > 5000 ? 0 : 100;
  const taxPrice = round2(0.15 * itemsPrice);
  const totalPrice = round2(itemsPrice + shippingPrice + taxPrice);
  return { cartItems, itemsPrice, shippingPrice, taxPrice, totalPrice };
}

const SHIPPING_ADDRESS = {
  county: 'Nairobi',
  // Numeric inputs: their values are text.
  phoneNumber: '0711223344',
  postalCode: '00100',
  sub_county: 'Westlands',
  ward: 'Parklands/Highridge',
};

/** The order placed from a cart, as the Place Order screen sends it. */
function orderBody(cart: ReturnType<typeof cartFor>): Json {
  return {
    orderItems: cart.cartItems,
    shippingAddress: SHIPPING_ADDRESS,
    itemsPrice: cart.itemsPrice,
    shippingPrice: cart.shippingPrice,
    taxPrice: cart.taxPrice,
    totalPrice: cart.totalPrice,
  };
}

/** The admin's product edit form: every field as text, as FormData carries it. */
function productForm(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

let shop: TestShop;
const stamp = Date.now().toString(36);
const shopper = { name: 'Achieng Spec', email: `achieng-${stamp}@example.com`, password: 'spec-client-1' };
/** Shared across the journey, in the order the cases run. */
const state: { productId?: string; orderId?: string; userId?: string } = {};

beforeAll(async () => {
  shop = await startTestShop({ MPESA_SIMULATOR_DELAY_MS: '200', RATE_LIMIT_STKPUSH_MAX: '100' });
});
afterAll(() => shop?.stop());

describe('the specification’s client against Duka, from a fresh session onwards', () => {
  it('browses: the listing, its pages, the top products, a search and a product, each card with its reviews', async () => {
    const tab = new SpecClient(shop.url);
    const home = expectOk(
      await tab.get<{ products: ListedProduct[]; page: number; pages: number }>('/api/products?pageNumber=1&keyword='),
    );
    expect(home).toMatchObject({ page: 1, pages: expect.any(Number) });
    expect(home.products.length).toBeGreaterThan(0);
    expectCards(home.products);
    expect(home.products.some((p) => p.reviews.length > 0)).toBe(true);

    const top = expectOk(await tab.get<ListedProduct[]>('/api/products/top'));
    expect(top).toHaveLength(3);
    expectCards(top);

    const second = expectOk(await tab.get<{ products: ListedProduct[]; page: number }>('/api/products?pageNumber=2&keyword='));
    expect(second.page).toBe(2);
    expectCards(second.products);

    const found = expectOk(
      await tab.get<{ products: ListedProduct[]; pages: number }>('/api/products?pageNumber=1&keyword=samsung'),
    );
    expect(found.products.length).toBeGreaterThan(0);
    expectCards(found.products);
    const none = expectOk(
      await tab.get<{ products: ListedProduct[]; pages: number }>('/api/products?pageNumber=1&keyword=zzqxv'),
    );
    expect(none.products).toEqual([]);

    const reviewed = top[0]!;
    const detail = expectOk(await tab.get<ProductDetail>(`/api/products/${reviewed._id}`));
    expect(detail).toMatchObject({ ...cardShape, description: expect.any(String), category: expect.any(String) });
    expect(detail.reviews.length).toBe(detail.numReviews);
    for (const review of detail.reviews) {
      expect(review).toMatchObject({
        _id: expect.any(String),
        name: expect.any(String),
        rating: expect.any(Number),
        comment: expect.any(String),
      });
    }
    // A guest is asked to sign in; were it sent, the review answers the error list.
    expectErrors(
      await tab.post(`/api/products/${reviewed._id}/reviews`, { rating: 5, comment: 'Guest' }),
      401,
      /sign in|log in|not authori/i,
    );
  });

  it('signs up from a fresh session whose only calls were catalogue reads, then signs out', async () => {
    const tab = new SpecClient(shop.url);
    expectOk(await tab.get('/api/products?pageNumber=1&keyword='));
    expectOk(await tab.get('/api/products/top'));
    // The catalogue hands out no XSRF cookie, so axios sends no X-XSRF-TOKEN: the first POST must pass without it.
    expect(tab.hasCookie('XSRF-TOKEN')).toBe(false);
    const user = expectOk(await tab.post<User>('/api/users', shopper), 201);
    expect(made.at(-1)).toMatchObject({ line: 'POST /api/users', sentToken: false });
    expect(user).toMatchObject({ ...userShape, name: shopper.name, email: shopper.email, isAdmin: false });
    state.userId = user._id;
    const out = expectOk(await tab.post<{ msg: string }>('/api/users/logout'));
    expect(out.msg).toEqual(expect.any(String));
    expectErrors(await tab.get('/api/users/profile'), 401, /./);
  });

  it('signs in as its first unsafe call; a wrong password answers the error list', async () => {
    const tab = new SpecClient(shop.url);
    expectOk(await tab.get('/api/products?pageNumber=1&keyword='));
    expectErrors(await tab.post('/api/users/auth', { email: shopper.email, password: 'not-the-password' }), 401, /./);
    expect(made.at(-1)?.sentToken).toBe(false);
    const user = expectOk(await tab.post<User>('/api/users/auth', { email: shopper.email, password: shopper.password }));
    expect(user).toMatchObject({ ...userShape, _id: state.userId, email: shopper.email });
  });

  it('resets a forgotten password with the mailed link, each step from a fresh session', async () => {
    const asked = expectOk(
      await new SpecClient(shop.url).post<{ msg: string }>('/api/users/forgot-password', { email: shopper.email }),
    );
    expect(asked.msg).toEqual(expect.any(String));
    const token = resetTokenFrom(await waitForMail(shop.config.dataDir, shopper.email, 15_000));
    const reset = expectOk(
      await new SpecClient(shop.url).post<{ msg: string }>(`/api/users/reset-password/${token}`, { password: 'spec-client-2' }),
    );
    expect(reset.msg).toEqual(expect.any(String));
    shopper.password = 'spec-client-2';
    expectOk(await new SpecClient(shop.url).post('/api/users/auth', { email: shopper.email, password: shopper.password }));
  });

  it('shows and updates the profile, with and without a new password', async () => {
    const tab = new SpecClient(shop.url);
    expectOk(await tab.post('/api/users/auth', { email: shopper.email, password: shopper.password }));
    expect(expectOk(await tab.get<User>('/api/users/profile'))).toMatchObject({ ...userShape, _id: state.userId });
    expect(expectOk(await tab.get<User>(`/api/users/${state.userId}`))).toMatchObject({ ...userShape, _id: state.userId });
    // Password and confirmation left empty: they match, and the empty password is sent.
    const renamed = expectOk(
      await tab.put<User>('/api/users/profile', {
        _id: state.userId,
        name: 'Achieng Otieno',
        email: shopper.email,
        password: '',
      }),
    );
    expect(renamed).toMatchObject({ ...userShape, name: 'Achieng Otieno' });
    // A new password is the one deliberate departure: it needs the current password, so that a
    // borrowed session cannot take the account over. The spec's payload alone is refused, clearly.
    const change = { _id: state.userId, name: 'Achieng Otieno', email: shopper.email, password: 'spec-client-3' };
    const refused = await tab.put<{ errors: { msg: string; path?: string }[] }>('/api/users/profile', change);
    expect(refused.status).toBe(400);
    expect(refused.data.errors[0]).toMatchObject({ path: 'currentPassword', msg: expect.stringContaining('current password') });
    expectOk(await new SpecClient(shop.url).post('/api/users/auth', { email: shopper.email, password: shopper.password }));
    const repassed = expectOk(await tab.put<User>('/api/users/profile', { ...change, currentPassword: shopper.password }));
    expect(repassed).toMatchObject(userShape);
    shopper.password = 'spec-client-3';
    expectOk(await new SpecClient(shop.url).post('/api/users/auth', { email: shopper.email, password: shopper.password }));
  });

  it('the admin creates, uploads for and edits a product with form data, numbers as text', async () => {
    const tab = new SpecClient(shop.url);
    expectOk(await tab.post('/api/users/auth', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }));
    // Create Product: no payload; the answer is the product, opened for editing.
    const created = expectOk(await tab.post<ListedProduct>('/api/products'), 201);
    expect(created).toMatchObject({ ...cardShape, reviews: [] });
    // The client's product list is GET /api/products: the new product leads it, its Edit link
    // taken from there (the client never opens a product by the id Create answered).
    const list = expectOk(await tab.get<{ products: ListedProduct[] }>('/api/products?pageNumber=1&keyword='));
    expect(list.products[0]).toMatchObject({ ...cardShape, _id: created._id, reviews: [] });
    const editing = expectOk(await tab.get<ProductDetail>(`/api/products/${list.products[0]?._id}`));

    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#1e7b34' } })
      .png()
      .toBuffer();
    const upload = new FormData();
    upload.set('image', new Blob([new Uint8Array(photo)], { type: 'image/png' }), 'jiko.png');
    const uploaded = expectOk(await tab.post<{ image: string }>('/api/uploads', upload), 201);
    expect(uploaded.image).toEqual(expect.any(String));
    const refused = new FormData();
    refused.set('image', new Blob(['not an image'], { type: 'image/png' }), 'fake.png');
    expectErrors(await tab.post('/api/uploads', refused), 415, /JPEG, PNG or WebP/);

    // Update: the edit form's fields as form data; price and stock are text.
    const updated = expectOk(
      await tab.put<ListedProduct>(
        `/api/products/${editing._id}`,
        productForm({
          _id: editing._id,
          name: `Jiko Spec ${stamp}`,
          price: '2699',
          image: uploaded.image,
          countInStock: '10',
          category: 'Kitchen',
          description: 'A charcoal jiko, for the spec client',
        }),
      ),
    );
    expect(updated).toMatchObject({ ...cardShape, price: 2699, countInStock: 10, image: uploaded.image, reviews: [] });
    state.productId = updated._id;
    // It leads the listing now, with its empty reviews list.
    const home = expectOk(await tab.get<{ products: ListedProduct[] }>('/api/products?pageNumber=1&keyword='));
    expect(home.products[0]).toMatchObject({ _id: updated._id, price: 2699, reviews: [] });
  });

  it('orders with its own cart lines and prices, follows the order, and pays with { phoneNumber, Amount }', async () => {
    const tab = new SpecClient(shop.url);
    expectOk(await tab.post('/api/users/auth', { email: shopper.email, password: shopper.password }));
    const product = expectOk(await tab.get<ProductDetail>(`/api/products/${state.productId}`));
    const cart = cartFor([{ product, qty: 1 }]);
    expect(cart.totalPrice).toBe(3203.85);

    const placed = expectOk(await tab.post<Order>('/api/orders', orderBody(cart)), 201);
    expect(placed._id).toEqual(expect.any(String));
    // The server prices the order itself, with the same rules as the client's cart.
    expect(placed).toMatchObject({
      itemsPrice: cart.itemsPrice,
      shippingPrice: cart.shippingPrice,
      taxPrice: cart.taxPrice,
      totalPrice: cart.totalPrice,
    });
    state.orderId = placed._id;

    const order = expectOk(await tab.get<Order>(`/api/orders/${placed._id}`));
    expect(order).toMatchObject({ ...orderShape, isPaid: false, paidAt: null, isDelivered: false, deliveredAt: null });
    expect(order.user).toMatchObject({ name: 'Achieng Otieno', email: shopper.email });
    expect(order.orderItems).toEqual([{ _id: product._id, name: product.name, image: product.image, qty: 1, price: 2699 }]);
    expect(order.shippingAddress).toEqual(SHIPPING_ADDRESS);

    const mine = expectOk(await tab.get<Order[]>('/api/orders/myorders'));
    expect(mine.map((o) => o._id)).toContain(placed._id);
    for (const o of mine) expect(o).toMatchObject(orderShape);

    // PayOrder sends the phone number and the total it shows, 3203.85; M-Pesa is asked for 3,204.
    const prompt = expectOk(
      await tab.post<{ msg: string }>('/api/orders/stkpush', { phoneNumber: '0708374149', Amount: order.totalPrice }),
    );
    expect(prompt.msg).toContain('3,204.00');
    await expect
      .poll(async () => (await tab.get<Order>(`/api/orders/${placed._id}`)).data.isPaid, { timeout: 15_000, interval: 200 })
      .toBe(true);
    expect(expectOk(await tab.get<Order>(`/api/orders/${placed._id}`)).paidAt).toEqual(expect.any(String));
    // Nothing left to pay for that amount: the error list says so.
    expectErrors(
      await tab.post('/api/orders/stkpush', { phoneNumber: '0708374149', Amount: order.totalPrice }),
      400,
      /unpaid order/,
    );
  });

  it('reviews the product it bought, sees it on the card and the page, and deletes it', async () => {
    const tab = new SpecClient(shop.url);
    expectOk(await tab.post('/api/users/auth', { email: shopper.email, password: shopper.password }));
    const id = state.productId!;
    expectOk(await tab.post(`/api/products/${id}/reviews`, { rating: 4, comment: 'Cooks well, little charcoal' }), 201);
    expectErrors(await tab.post(`/api/products/${id}/reviews`, { rating: 5, comment: 'Again' }), 400, /already reviewed/i);

    // After a review the product is reloaded.
    const detail = expectOk(await tab.get<ProductDetail>(`/api/products/${id}`));
    expect(detail).toMatchObject({ rating: 4, numReviews: 1 });
    expect(detail.reviews).toEqual([
      expect.objectContaining({ name: 'Achieng Otieno', rating: 4, comment: 'Cooks well, little charcoal', user: state.userId }),
    ]);
    const card = expectOk(await tab.get<{ products: ListedProduct[] }>('/api/products?pageNumber=1&keyword=')).products.find(
      (p) => p._id === id,
    )!;
    expect(card.reviews.length).toBe(1);
    expect(card.reviews[0]).toMatchObject({ _id: detail.reviews[0]!._id, name: 'Achieng Otieno', rating: 4 });
    const hit = expectOk(
      await tab.get<{ products: ListedProduct[] }>(`/api/products?pageNumber=1&keyword=${encodeURIComponent('Jiko Spec')}`),
    );
    expect(hit.products.find((p) => p._id === id)?.reviews.length).toBe(1);

    expectOk(await tab.delete(`/api/products/${id}/${detail.reviews[0]!._id}`));
    const after = expectOk(await tab.get<ProductDetail>(`/api/products/${id}`));
    expect(after).toMatchObject({ numReviews: 0, reviews: [] });
    // Added again, for the admin to see.
    expectOk(await tab.post(`/api/products/${id}/reviews`, { rating: 5, comment: 'Still cooking' }), 201);
  });

  it('the admin manages users, orders and products with every admin call', async () => {
    const tab = new SpecClient(shop.url);
    expectOk(await tab.post('/api/users/auth', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }));

    // Users: list, one by id, update with form data, delete.
    const users = expectOk(await tab.get<User[]>('/api/users'));
    for (const u of users) expect(u).toMatchObject(userShape);
    expect(users.map((u) => u._id)).toContain(state.userId);
    expect(expectOk(await tab.get<User>(`/api/users/${state.userId}`))).toMatchObject({ ...userShape, email: shopper.email });
    // Password left empty is omitted; the Is Admin checkbox arrives as text.
    const edited = expectOk(
      await tab.put<User>(
        `/api/users/${state.userId}`,
        productForm({ name: 'Achieng O.', email: shopper.email, isAdmin: 'false' }),
      ),
    );
    expect(edited).toMatchObject({ ...userShape, name: 'Achieng O.', isAdmin: false });
    const leaving = expectOk(
      await new SpecClient(shop.url).post<User>('/api/users', {
        name: 'Leaving Soon',
        email: `leaving-${stamp}@example.com`,
        password: 'leaving-pass-1',
      }),
      201,
    );
    expect(expectOk(await tab.delete<{ msg: string }>(`/api/users/${leaving._id}`)).msg).toEqual(expect.any(String));
    expectErrors(await tab.get(`/api/users/${leaving._id}`), 404, /./);

    // Orders: the shopper places two more; the admin marks one paid and delivered, deletes the other.
    const buyer = new SpecClient(shop.url);
    expectOk(await buyer.post('/api/users/auth', { email: shopper.email, password: shopper.password }));
    const product = expectOk(await buyer.get<ProductDetail>(`/api/products/${state.productId}`));
    const toMark = expectOk(await buyer.post<Order>('/api/orders', orderBody(cartFor([{ product, qty: 2 }]))), 201);
    const toDelete = expectOk(await buyer.post<Order>('/api/orders', orderBody(cartFor([{ product, qty: 1 }]))), 201);

    const all = expectOk(await tab.get<Order[]>('/api/orders'));
    for (const o of all)
      expect(o).toMatchObject({ _id: expect.any(String), createdAt: expect.any(String), totalPrice: expect.any(Number) });
    expect(all.map((o) => o._id)).toEqual(expect.arrayContaining([state.orderId, toMark._id, toDelete._id]));
    expect(all.find((o) => o._id === toMark._id)?.user).toMatchObject({ name: 'Achieng O.' });

    const paid = expectOk(await tab.put<Order>(`/api/orders/${toMark._id}`));
    expect(paid).toMatchObject({ ...orderShape, isPaid: true, paidAt: expect.any(String) });
    // "No body": axios sends none for put(url), an empty object for put(url, {}); both work.
    const delivered = expectOk(await tab.put<Order>(`/api/orders/${toMark._id}/deliver`, {}));
    expect(delivered).toMatchObject({ ...orderShape, isDelivered: true, deliveredAt: expect.any(String) });
    expect(expectOk(await tab.get<Order>(`/api/orders/${toMark._id}`))).toMatchObject({ isPaid: true, isDelivered: true });

    expect(expectOk(await tab.delete<{ msg: string }>(`/api/orders/${toDelete._id}`)).msg).toEqual(expect.any(String));
    expectErrors(await tab.delete(`/api/orders/${toDelete._id}`), 404, /./);

    // Reviews: an admin may delete anyone's.
    const reviewed = expectOk(await tab.get<ProductDetail>(`/api/products/${state.productId}`));
    expectOk(await tab.delete(`/api/products/${state.productId}/${reviewed.reviews[0]!._id}`));

    // Products: a sample made and deleted; the listing shows it no more.
    const sample = expectOk(await tab.post<ListedProduct>('/api/products', {}), 201);
    expect(expectOk(await tab.delete<{ msg: string }>(`/api/products/${sample._id}`)).msg).toEqual(expect.any(String));
    expectErrors(await tab.get(`/api/products/${sample._id}`), 404, /./);
    const home = expectOk(await tab.get<{ products: ListedProduct[] }>('/api/products?pageNumber=1&keyword='));
    expect(home.products.map((p) => p._id)).not.toContain(sample._id);
    expectCards(home.products);

    expect(expectOk(await tab.post<{ msg: string }>('/api/users/logout')).msg).toEqual(expect.any(String));
  });

  it('made every call of the API, each answered 2xx at least once, with no request refused for its security token', () => {
    const missing = SPEC_CALLS.filter(([, pattern]) => !made.some((m) => pattern.test(m.line) && m.status < 300)).map(
      ([label]) => label,
    );
    expect(missing).toEqual([]);
    expect(made.filter((m) => m.status === 403)).toEqual([]);
    // Many calls went without the header (a session's first), and all of those were answered.
    expect(made.filter((m) => !m.sentToken && m.line.startsWith('POST')).length).toBeGreaterThan(5);
  });
});
