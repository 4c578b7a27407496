import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductDetail } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
});
afterAll(() => shop?.stop());

async function detail(id: string) {
  return (await shop.client().get<ProductDetail>(`/api/products/${id}`)).body;
}

describe('reviews', () => {
  it('keeps the rating the mean of the reviews as they are added and deleted', async () => {
    const product = await createProduct(admin);
    const amina = await shop.shopper('Amina Odhiambo');
    const brian = await shop.shopper('Brian Kiprop');

    expect((await amina.post(`/api/products/${product._id}/reviews`, { rating: 5, comment: 'Excellent value' })).status).toBe(
      201,
    );
    let p = await detail(product._id);
    expect(p).toMatchObject({ rating: 5, numReviews: 1 });
    expect(p.reviews[0]).toMatchObject({ name: 'Amina Odhiambo', rating: 5, comment: 'Excellent value', user: amina.user!._id });

    expect((await brian.post(`/api/products/${product._id}/reviews`, { rating: 2, comment: 'Broke after a week' })).status).toBe(
      201,
    );
    p = await detail(product._id);
    expect(p).toMatchObject({ rating: 3.5, numReviews: 2 });

    const brianReview = p.reviews.find((r) => r.user === brian.user!._id)!;
    expect((await brian.delete(`/api/products/${product._id}/${brianReview._id}`)).status).toBe(200);
    p = await detail(product._id);
    expect(p).toMatchObject({ rating: 5, numReviews: 1 });
  });

  it('lets a shopper review a product only once', async () => {
    const product = await createProduct(admin);
    const shopper = await shop.shopper();
    expect((await shopper.post(`/api/products/${product._id}/reviews`, { rating: 4, comment: 'Good' })).status).toBe(201);
    expectClientError(
      await shopper.post(`/api/products/${product._id}/reviews`, { rating: 1, comment: 'Again' }),
      400,
      'Product already reviewed',
    );
    expect((await detail(product._id)).numReviews).toBe(1);
  });

  it('counts one review when the same shopper submits twice at once', async () => {
    const product = await createProduct(admin);
    const shopper = await shop.shopper();
    const results = await Promise.all(
      [1, 2, 3].map((n) => shopper.post(`/api/products/${product._id}/reviews`, { rating: n + 2, comment: `Try ${n}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) expectClientError(r, 400, 'Product already reviewed');
    expect((await detail(product._id)).numReviews).toBe(1);
  });

  it.each([
    [{ comment: 'No rating' }, 'Rating'],
    [{ rating: 0, comment: 'Zero' }, 'Rating must be from 1 to 5'],
    [{ rating: 6, comment: 'Six' }, 'Rating must be from 1 to 5'],
    [{ rating: 3.5, comment: 'Half' }, 'whole number'],
    [{ rating: 'five', comment: 'Text' }, 'Rating'],
    [{ rating: 4 }, 'Comment is required'],
    [{ rating: 4, comment: '   ' }, 'Comment is required'],
    [{ rating: 4, comment: 'x'.repeat(2001) }, 'at most 2000'],
  ])('refuses %j', async (body, msg) => {
    const product = await createProduct(admin);
    const shopper = await shop.shopper();
    expectClientError(await shopper.post(`/api/products/${product._id}/reviews`, body), 400, msg);
    expect((await detail(product._id)).numReviews).toBe(0);
  });

  it('accepts the rating as form text', async () => {
    const product = await createProduct(admin);
    const shopper = await shop.shopper();
    const form = new FormData();
    form.set('rating', '4');
    form.set('comment', 'Sent as a form');
    expect((await shopper.request('POST', `/api/products/${product._id}/reviews`, { body: form })).status).toBe(201);
    expect((await detail(product._id)).rating).toBe(4);
  });

  it('refuses guests and reviews of unknown products', async () => {
    const product = await createProduct(admin);
    expectClientError(await shop.client().post(`/api/products/${product._id}/reviews`, { rating: 5, comment: 'Hi' }), 401);
    const shopper = await shop.shopper();
    expectClientError(
      await shopper.post('/api/products/00000000-0000-4000-8000-000000000000/reviews', { rating: 5, comment: 'Hi' }),
      404,
      'Product not found',
    );
  });

  it('lets only the author or an admin delete a review', async () => {
    const product = await createProduct(admin);
    const author = await shop.shopper();
    const other = await shop.shopper();
    await author.post(`/api/products/${product._id}/reviews`, { rating: 3, comment: 'Fine' });
    const [review] = (await detail(product._id)).reviews;
    expectClientError(await other.delete(`/api/products/${product._id}/${review!._id}`), 403);
    expectClientError(await shop.client().delete(`/api/products/${product._id}/${review!._id}`), 401);
    expect((await detail(product._id)).numReviews).toBe(1);
    expect((await admin.delete(`/api/products/${product._id}/${review!._id}`)).status).toBe(200);
    expect(await detail(product._id)).toMatchObject({ numReviews: 0, rating: 0 });
    expectClientError(await admin.delete(`/api/products/${product._id}/${review!._id}`), 404, 'Review not found');
  });

  it('refuses to delete a review through another product', async () => {
    const a = await createProduct(admin);
    const b = await createProduct(admin);
    const author = await shop.shopper();
    await author.post(`/api/products/${a._id}/reviews`, { rating: 3, comment: 'Fine' });
    const [review] = (await detail(a._id)).reviews;
    expectClientError(await author.delete(`/api/products/${b._id}/${review!._id}`), 404);
    expect((await detail(a._id)).numReviews).toBe(1);
  });
});
