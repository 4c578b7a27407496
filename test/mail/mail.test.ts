import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nairobiDay } from '../../src/shared/dates.js';
import { formatKsh } from '../../src/shared/money.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { resetLink, TestSmtpServer } from '../support/smtp.js';

/** Mail through a real SMTP server started here, delivered by the shop's durable queue. */

let smtp: TestSmtpServer;
let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  smtp = new TestSmtpServer();
  await smtp.start();
  shop = await startTestShop({
    SMTP_URL: smtp.url,
    MAIL_POLL_INTERVAL_MS: '200',
    MAIL_RETRY_BASE_MS: '200',
    PUBLIC_URL: 'https://duka.example.co.ke',
    MPESA_SIMULATOR_DELAY_MS: '200',
  });
  admin = await shop.admin();
});
afterAll(async () => {
  await shop?.stop();
  await smtp?.stop();
});

let n = 0;
const newEmail = () => `mail-${Date.now()}-${++n}@example.com`;

async function mailRows(to: string) {
  const result = (await shop.database.db.execute(
    sql`SELECT kind, status, attempts, last_error FROM mail_queue WHERE to_address = ${to} ORDER BY created_at`,
  )) as unknown as { rows: { kind: string; status: string; attempts: number; last_error: string | null }[] };
  return result.rows;
}

describe('password reset by mail', () => {
  it('mails a working link; the reset signs out every session; the token works once', async () => {
    const email = newEmail();
    const here = shop.client();
    await here.signUp('Wairimu Reset', email, 'old-password-1');
    const elsewhere = shop.client();
    await elsewhere.signIn(email, 'old-password-1');

    const asked = await shop.client().post<{ msg: string }>('/api/users/forgot-password', { email });
    expect(asked.status).toBe(200);
    const mail = await smtp.waitFor(email);
    expect(mail.subject).toBe('Reset your Duka password');
    expect(mail.from?.text).toContain('no-reply@duka.local');
    const link = resetLink(mail);
    expect(link.startsWith('https://duka.example.co.ke/reset-password/')).toBe(true);
    expect(mail.html).toContain(link);
    const token = link.split('/').pop()!;

    const reset = await shop.client().post<{ msg: string }>(`/api/users/reset-password/${token}`, { password: 'new-password-2' });
    expect(reset.status).toBe(200);
    expectClientError(await shop.client().post('/api/users/auth', { email, password: 'old-password-1' }), 401);
    expectClientError(await here.get('/api/users/profile'), 401);
    expectClientError(await elsewhere.get('/api/users/profile'), 401);
    await shop.client().signIn(email, 'new-password-2');
    expectClientError(
      await shop.client().post(`/api/users/reset-password/${token}`, { password: 'third-password-3' }),
      400,
      'invalid or has expired',
    );
  });

  it('refuses an expired token', async () => {
    const email = newEmail();
    await shop.client().signUp('Late Reader', email, 'old-password-1');
    await shop.client().post('/api/users/forgot-password', { email });
    const token = resetLink(await smtp.waitFor(email))
      .split('/')
      .pop()!;
    await shop.database.db.execute(sql`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second'`);
    expectClientError(
      await shop.client().post(`/api/users/reset-password/${token}`, { password: 'new-password-2' }),
      400,
      'expired',
    );
  });

  it('answers an unknown email with the same msg and sends nothing', async () => {
    const known = newEmail();
    await shop.client().signUp('Known', known, 'old-password-1');
    const unknown = newEmail();
    const a = await shop.client().post('/api/users/forgot-password', { email: known });
    const b = await shop.client().post('/api/users/forgot-password', { email: unknown });
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    await smtp.waitFor(known);
    // Mail is queued in the request's own transaction: nothing queued for it now is never sent.
    expect(await mailRows(unknown)).toEqual([]);
    expect(smtp.to(unknown)).toEqual([]);
  });
});

describe('order mails', () => {
  it('sends order placed, payment received (with the M-Pesa receipt) and delivered, with the right content', async () => {
    const product = await createProduct(admin, { name: 'Jiko Ya Kisasa', price: 2499.5, countInStock: 10 });
    const email = newEmail();
    const shopper = shop.client();
    await shopper.signUp('Mwangi Buyer', email, 'buyer-pass-1');
    const order = (await placeOrder(shopper, [{ _id: product._id, qty: 2 }])).body as Order;

    const placed = await smtp.waitFor(email, 1);
    const short = order.orderNumber;
    expect(placed.subject).toContain(short);
    expect(placed.subject?.toLowerCase()).toContain('placed');
    for (const part of [placed.text ?? '', placed.html || '']) {
      expect(part).toContain('Jiko Ya Kisasa');
      expect(part).toContain(formatKsh(4999)); // 2 × 2,499.50
      expect(part).toContain(formatKsh(order.totalPrice));
      expect(part).toContain('Westlands');
      expect(part).toContain(`https://duka.example.co.ke/order/${order._id}`);
      expect(part).toContain(formatKsh(Math.ceil(order.totalPrice)));
    }

    expect(
      (
        await shopper.post('/api/orders/stkpush', {
          orderId: order._id,
          phoneNumber: '0708374149',
          Amount: Math.ceil(order.totalPrice),
        })
      ).status,
    ).toBe(200);
    await expect
      .poll(async () => (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body.isPaid, { timeout: 5000 })
      .toBe(true);
    const receipt = (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body.receipt!;
    const paid = await smtp.waitFor(email, 2);
    expect(paid.subject?.toLowerCase()).toContain('payment received');
    expect(paid.text).toContain(receipt);
    expect(paid.html).toContain(receipt);

    await admin.put(`/api/orders/${order._id}/deliver`);
    const delivered = await smtp.waitFor(email, 3);
    expect(delivered.subject?.toLowerCase()).toContain('delivered');
    expect(delivered.text).toContain(nairobiDay(new Date()));
    // The relay has the mail before the worker, hearing its answer, records it as sent.
    await expect
      .poll(async () => (await mailRows(email)).map((r) => [r.kind, r.status]))
      .toEqual([
        ['order_placed', 'sent'],
        ['order_paid', 'sent'],
        ['order_delivered', 'sent'],
      ]);
  });

  it('sends the payment mail once when an admin marks the order paid by hand', async () => {
    const product = await createProduct(admin, { countInStock: 5 });
    const email = newEmail();
    const shopper = shop.client();
    await shopper.signUp('Hand Paid', email, 'buyer-pass-1');
    const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
    await admin.put(`/api/orders/${order._id}`);
    expectClientError(await admin.put(`/api/orders/${order._id}`), 400, 'already paid');
    const paid = await smtp.waitFor(email, 2);
    expect(paid.text).not.toContain('M-Pesa receipt');
    // Both answers are in, so every mail they will ever cause is queued: one order_paid, not two.
    expect((await mailRows(email)).map((row) => row.kind)).toEqual(['order_placed', 'order_paid']);
    expect(smtp.to(email)).toHaveLength(2);
  });

  it('loses no mail when the mail server is down during checkout: it goes out once the server is back', async () => {
    const product = await createProduct(admin, { countInStock: 5 });
    const email = newEmail();
    const shopper = shop.client();
    await shopper.signUp('Outage Shopper', email, 'buyer-pass-1');

    await smtp.stop();
    const placed = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
    expect(placed.status).toBe(201);
    // Tried at least twice, failed, and waiting in the queue for its next try (not between tries).
    await expect
      .poll(
        async () => {
          const [row] = await mailRows(email);
          return (
            row !== undefined && row.kind === 'order_placed' && row.attempts >= 2 && row.status === 'queued' && !!row.last_error
          );
        },
        { timeout: 8000, interval: 50 },
      )
      .toBe(true);
    const seen = (
      await admin.get<{ messages: { to: string; status: string; lastError: string | null }[]; counts: Record<string, number> }>(
        '/api/admin/mail',
      )
    ).body;
    const shown = seen.messages.find((m) => m.to === email);
    // The worker may be between tries at this instant; either way the admin sees it is not sent.
    expect(['queued', 'sending']).toContain(shown?.status);
    expect(shown?.lastError).toBeTruthy();
    expect((seen.counts.queued ?? 0) + (seen.counts.sending ?? 0)).toBeGreaterThanOrEqual(1);

    await smtp.start(); // the same port again
    const mail = await smtp.waitFor(email, 1, 15_000);
    expect(mail.subject).toContain(placed.body.orderNumber);
    await expect.poll(async () => (await mailRows(email))[0]?.status, { timeout: 5000 }).toBe('sent');
    expect(smtp.to(email)).toHaveLength(1);
  });
});

describe('the admin’s view of the mail queue', () => {
  it('lists recent messages with their status, for admins only', async () => {
    const res = await admin.get<{ messages: { status: string; kind: string }[]; counts: Record<string, number> }>(
      '/api/admin/mail',
    );
    expect(res.status).toBe(200);
    expect(res.body.counts.sent).toBeGreaterThan(0);
    expect(res.body.messages.some((m) => m.kind === 'order_placed' && m.status === 'sent')).toBe(true);
    expectClientError(await (await shop.shopper()).get('/api/admin/mail'), 403);
    expectClientError(await admin.get('/api/admin/mail?status=lost'), 400);
  });
});
