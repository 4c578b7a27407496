import { describe, expect, it } from 'vitest';
import { formatKsh } from '../../shared/money.js';
import type { Order } from '../../shared/schemas/orders.js';
import type { MailMessage } from './mailer.js';
import {
  accountChangedMail,
  callbackParkedAlertMail,
  lowStockAlertMail,
  newOrderAlertMail,
  orderDeliveredMail,
  orderPaidMail,
  orderPlacedMail,
  passwordResetMail,
  paymentExceptionAlertMail,
  signInPausedMail,
} from './templates.js';

const SHOP_URL = 'https://duka.example.co.ke';
const ORDER_ID = '6f1c2a9e-4b7d-4e21-9a33-0c5d8e7f1a22';
const ORDER_URL = `${SHOP_URL}/order/${ORDER_ID}`;

const PAYBILL = { paybill: '888880' };

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';

/** Text as React escapes it in HTML, in text and in attribute values alike. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' })[c] ?? c);
}

/** A worked order by the pricing rules (docs/product-rules.md, Constants): 2 × 1,499.50 + 3 × 249.99, Ksh 100 shipping, 15% tax. */
function anOrder(overrides: Partial<Order> = {}): Order {
  return {
    _id: ORDER_ID,
    orderNumber: 'K7Q3M9XD',
    user: { _id: 'user-1', name: 'Wanjiru Kamau', email: 'wanjiru@example.com' },
    orderItems: [
      { _id: 'prod-towel', name: 'Kikoy beach towel', image: '/images/towel.jpg', qty: 2, price: 1499.5 },
      { _id: 'prod-coffee', name: 'Kenyan AA coffee 500 g', image: '/images/coffee.jpg', qty: 3, price: 249.99 },
      { _id: null, name: 'Maasai shuka (retired)', image: '/images/shuka.jpg', qty: 1, price: 0 },
    ],
    shippingAddress: {
      county: 'Nairobi',
      sub_county: 'Westlands',
      ward: 'Parklands/Highridge',
      postalCode: '00100',
      phoneNumber: '0712345678',
    },
    paymentMethod: 'MPESA',
    itemsPrice: 3748.97,
    shippingPrice: 100,
    taxPrice: 562.35,
    totalPrice: 4411.32,
    isPaid: false,
    paidAt: null,
    mpesaReceipt: null,
    isDelivered: false,
    deliveredAt: null,
    createdAt: '2025-03-14T08:55:00.000Z',
    updatedAt: '2025-03-14T08:55:00.000Z',
    ...overrides,
  };
}

const paid = { isPaid: true, paidAt: '2025-03-15T09:12:00.000Z', mpesaReceipt: 'SCB4X7Y2QZ' } satisfies Partial<Order>;
const delivered = { ...paid, isDelivered: true, deliveredAt: '2025-03-17T15:40:00.000Z' } satisfies Partial<Order>;

/** Asserts every fact is in both the text and the HTML (the HTML as escaped). */
function expectBoth(mail: MailMessage, facts: string[]) {
  for (const fact of facts) {
    expect(mail.text).toContain(fact);
    expect(mail.html).toContain(escapeHtml(fact));
  }
}

/** What every mail's HTML must be: mail-client safe, single column, no active content. */
function expectMailSafeHtml(html: string) {
  expect(html.toLowerCase()).not.toContain('<script');
  expect(html.toLowerCase()).not.toContain('<style');
  expect(html.toLowerCase()).not.toContain('<link');
  expect(html.toLowerCase()).not.toContain('<img');
  // No event handler attribute on any tag (escaped text such as `onerror=` in a name is no tag).
  expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
  expect(html).toContain('<table role="presentation"');
  expect(html).toContain('max-width:600px');
}

describe('orderPlacedMail', () => {
  const mail = orderPlacedMail(anOrder(), SHOP_URL, PAYBILL);

  it('goes to the customer with the short id in the subject', () => {
    expect(mail.to).toBe('wanjiru@example.com');
    expect(mail.subject).toBe('Your Duka order K7Q3M9XD is placed');
  });

  it('greets the customer and lists the items with their line totals', () => {
    expectBoth(mail, ['Wanjiru Kamau', 'Kikoy beach towel', 'Kenyan AA coffee 500 g', 'Maasai shuka (retired)']);
    expectBoth(mail, ['Ksh. 1,499.50', 'Ksh. 2,999.00', 'Ksh. 249.99', 'Ksh. 749.97']);
    expect(mail.text).toContain('2 × Ksh. 1,499.50 = Ksh. 2,999.00');
    expect(mail.text).toContain('3 × Ksh. 249.99 = Ksh. 749.97');
  });

  it('shows the summary in Ksh', () => {
    expectBoth(mail, ['Items', 'Shipping', 'Tax', 'Total', 'Ksh. 3,748.97', 'Ksh. 100.00', 'Ksh. 562.35', 'Ksh. 4,411.32']);
  });

  it('shows the shipping address', () => {
    expectBoth(mail, ['Nairobi', 'Westlands', 'Parklands/Highridge', '00100', '0712345678']);
  });

  it('tells how to pay with M-Pesa, the amount rounded up to whole shillings', () => {
    expect(mail.text).toContain(
      `Pay with M-Pesa from your order page: open ${ORDER_URL}, enter your M-Pesa number and confirm the prompt on your phone with your PIN. Amount: Ksh. 4,412.00`,
    );
    expect(mail.html).toContain('Ksh. 4,412.00<');
    expect(mail.html).toContain(`href="${ORDER_URL}"`);
    expect(mail.html).toContain('Pay with M-Pesa');
  });

  it('rounds a whole total to itself and any cents up', () => {
    expect(orderPlacedMail(anOrder({ totalPrice: 4411 }), SHOP_URL, PAYBILL).text).toContain('Amount: Ksh. 4,411.00\n');
    expect(orderPlacedMail(anOrder({ totalPrice: 100.01 }), SHOP_URL, PAYBILL).text).toContain('Amount: Ksh. 101.00\n');
  });

  it('links the order and the products that still exist', () => {
    expectBoth(mail, [ORDER_URL]);
    expect(mail.html).toContain(`href="${SHOP_URL}/products/prod-towel"`);
    expect(mail.html).not.toContain('/products/null');
  });

  it('builds links without a double slash when the shop URL ends in one', () => {
    const slashed = orderPlacedMail(anOrder(), `${SHOP_URL}/`, PAYBILL);
    expect(slashed.text).toContain(ORDER_URL);
    expect(slashed.html).toContain(`href="${ORDER_URL}"`);
    expect(slashed.text + slashed.html).not.toContain('.ke//');
  });

  it('dates the order by the Nairobi day: one placed at 01:00 EAT is on that day, not the UTC day before', () => {
    const late = orderPlacedMail(anOrder({ createdAt: '2025-03-14T22:00:00.000Z' }), SHOP_URL, PAYBILL);
    expectBoth(late, ['placed on 2025-03-15']);
    expect(late.text).not.toContain('2025-03-14');
  });

  it('skips the payment instructions when the order is already paid', () => {
    const already = orderPlacedMail(anOrder(paid), SHOP_URL, PAYBILL);
    expect(already.text).not.toContain('HOW TO PAY');
    expect(already.text).toContain('already paid');
  });

  it('is a mail-client safe single-column HTML mail with the shop footer', () => {
    expectMailSafeHtml(mail.html);
    expect(mail.html).toContain('>Duka<');
    expect(mail.html).toContain('Duka · <a href="https://duka.example.co.ke"');
    expect(mail.text).toContain(`Duka · ${SHOP_URL}`);
  });
});

describe('orderPaidMail', () => {
  const mail = orderPaidMail(anOrder(paid), SHOP_URL);

  it('goes to the customer with the short id in the subject', () => {
    expect(mail.to).toBe('wanjiru@example.com');
    expect(mail.subject).toBe('Payment received for your Duka order K7Q3M9XD');
  });

  it('shows the amount paid, the day and the M-Pesa receipt', () => {
    expectBoth(mail, ['Wanjiru Kamau', 'Ksh. 4,411.32', '2025-03-15', 'SCB4X7Y2QZ', ORDER_URL]);
    expect(mail.text).toContain('M-Pesa receipt: SCB4X7Y2QZ');
    expect(mail.html).toContain('M-Pesa receipt');
    expect(mail.text).not.toContain('2025-03-15T');
  });

  it('has no receipt line when M-Pesa reported none', () => {
    const noReceipt = orderPaidMail(anOrder({ ...paid, mpesaReceipt: null }), SHOP_URL);
    expect(noReceipt.text.toLowerCase()).not.toContain('receipt');
    expect(noReceipt.html.toLowerCase()).not.toContain('receipt');
    expectBoth(noReceipt, ['Ksh. 4,411.32', '2025-03-15']);
  });

  it('is a mail-client safe HTML mail', () => {
    expectMailSafeHtml(mail.html);
    expect(mail.html).toContain(`href="${ORDER_URL}"`);
  });
});

describe('orderDeliveredMail', () => {
  const mail = orderDeliveredMail(anOrder(delivered), SHOP_URL);

  it('goes to the customer with the short id in the subject', () => {
    expect(mail.to).toBe('wanjiru@example.com');
    expect(mail.subject).toBe('Your Duka order K7Q3M9XD has been delivered');
  });

  it('shows the delivery day, the items and the order link', () => {
    expectBoth(mail, [
      'Wanjiru Kamau',
      '2025-03-17',
      'Kikoy beach towel',
      'Kenyan AA coffee 500 g',
      'Maasai shuka (retired)',
      ORDER_URL,
    ]);
    expect(mail.text).toContain('Kikoy beach towel × 2');
    expect(mail.text).not.toContain('2025-03-17T');
  });

  it('invites a review, linking each product that still exists', () => {
    expectBoth(mail, ['review', `${SHOP_URL}/products/prod-towel`, `${SHOP_URL}/products/prod-coffee`]);
    expect(mail.html).toContain(`href="${SHOP_URL}/products/prod-towel"`);
    expect(mail.html).toContain(`href="${SHOP_URL}/products/prod-coffee"`);
    expect(mail.text + mail.html).not.toContain('/products/null');
  });

  it('is a mail-client safe HTML mail', () => {
    expectMailSafeHtml(mail.html);
  });
});

describe('the Paybill and Till fallback in the placed mail', () => {
  it('gives the Paybill business number, the order number as account and the amount', () => {
    const mail = orderPlacedMail(anOrder(), SHOP_URL, PAYBILL);
    expectBoth(mail, ['Or pay with M-Pesa Paybill', 'Business number', '888880', 'Account number', 'K7Q3M9XD']);
    expect(mail.text).toMatch(/Account number:\s+K7Q3M9XD\nAmount:\s+Ksh\. 4,412\.00/);
  });

  it('gives a Till shop its till number and no account number', () => {
    const mail = orderPlacedMail(anOrder(), SHOP_URL, { till: '5123456' });
    expectBoth(mail, ['Or pay with M-Pesa Buy Goods (Till)', 'Till number', '5123456']);
    expect(mail.text).not.toContain('Account number');
  });

  it('leaves the fallback out of a paid order', () => {
    const mail = orderPlacedMail(anOrder({ isPaid: true, paidAt: '2026-11-20T10:00:00.000Z' }), SHOP_URL, PAYBILL);
    expect(mail.text).not.toContain('Paybill');
  });
});

describe('every order mail', () => {
  const templates = {
    orderPlacedMail: (order: Order, shopUrl: string) => orderPlacedMail(order, shopUrl, PAYBILL),
    orderPaidMail,
    orderDeliveredMail,
  };

  for (const [name, template] of Object.entries(templates)) {
    it(`${name} refuses an order without a customer`, () => {
      expect(() => template(anOrder({ ...delivered, user: null }), SHOP_URL)).toThrow(Error);
    });

    for (const payload of [SCRIPT, IMG]) {
      it(`${name} escapes ${JSON.stringify(payload)} in the HTML and keeps it verbatim in the text`, () => {
        const order = anOrder({
          ...delivered,
          user: { _id: 'user-2', name: `Eve ${payload}`, email: 'eve@example.com' },
          orderItems: [
            { _id: 'prod-evil', name: `Towel ${payload}`, image: '/x.jpg', qty: 1, price: 10 },
            { _id: null, name: `Gone ${payload}`, image: '/y.jpg', qty: 1, price: 5 },
          ],
          shippingAddress: {
            county: 'Nairobi',
            sub_county: 'Westlands',
            ward: `Ward ${payload}`,
            postalCode: '00100',
            phoneNumber: '0712345678',
          },
          mpesaReceipt: `R ${payload}`,
        });
        const mail = template(order, SHOP_URL);
        expect(mail.html).not.toContain(payload);
        expect(mail.html).toContain(`Eve ${escapeHtml(payload)}`);
        expect(mail.text).toContain(`Eve ${payload}`);
        if (name !== 'orderPaidMail') {
          expect(mail.html).toContain(`Towel ${escapeHtml(payload)}`);
          expect(mail.html).toContain(`Gone ${escapeHtml(payload)}`);
          expect(mail.text).toContain(`Towel ${payload}`);
          expect(mail.text).toContain(`Gone ${payload}`);
          expect(mail.html).toContain(`Ward ${escapeHtml(payload)}`);
        } else {
          expect(mail.html).toContain(`R ${escapeHtml(payload)}`);
          expect(mail.text).toContain(`M-Pesa receipt: R ${payload}`);
        }
        expectMailSafeHtml(mail.html);
      });
    }

    it(`${name} escapes ids and the shop URL inside href attributes`, () => {
      const order = anOrder({
        ...delivered,
        _id: `x"><b>${ORDER_ID}`,
        orderItems: [{ _id: 'p"><i>', name: 'Towel', image: '/x.jpg', qty: 1, price: 10 }],
      });
      const mail = template(order, 'https://duka.example/?a=1&b="2"');
      expect(mail.html).not.toMatch(/<b>|<i>/);
      expect(mail.html).not.toContain('"2"');
      expect(mail.html).toContain('https://duka.example/?a=1&amp;b=&quot;2&quot;');
    });
  }
});

describe('passwordResetMail', () => {
  const link = `${SHOP_URL}/reset-password/abcDEF123_-xyz`;

  it('keeps its subject, recipient and link', () => {
    const mail = passwordResetMail('wanjiru@example.com', 'Wanjiru Kamau', link);
    expect(mail.to).toBe('wanjiru@example.com');
    expect(mail.subject).toBe('Reset your Duka password');
    expectBoth(mail, ['Wanjiru Kamau', link, 'within 1 hour']);
    expect(mail.html).toContain(`href="${link}"`);
    expectMailSafeHtml(mail.html);
    expect(mail.text).toContain(`Duka · ${SHOP_URL}`);
  });

  it('escapes the name in the HTML and keeps it verbatim in the text', () => {
    const mail = passwordResetMail('eve@example.com', SCRIPT, link);
    expect(mail.html).not.toContain(SCRIPT);
    expect(mail.html).toContain(escapeHtml(SCRIPT));
    expect(mail.text).toContain(`Hello ${SCRIPT},`);
  });
});

describe('the shop name from the settings', () => {
  it('names the shop in every part of a mail, escaped in the HTML', () => {
    const mail = orderPaidMail(anOrder(paid), SHOP_URL, undefined, `Soko ${SCRIPT}`);
    expect(mail.subject).toContain(`Soko ${SCRIPT} order`);
    expect(mail.text).toContain(`Soko ${SCRIPT} · ${SHOP_URL}`);
    expect(mail.html).not.toContain(SCRIPT);
    expect(mail.html).toContain(`Soko ${escapeHtml(SCRIPT)}`);
    expect(mail.html).not.toMatch(/>Duka</);
    expectMailSafeHtml(mail.html);
  });
});

describe('merchant alerts', () => {
  const ALERTS = 'owner@duka.example.co.ke';

  it('a new paid order: who, what, the total and a link to the order', () => {
    const mail = newOrderAlertMail(ALERTS, anOrder(paid), SHOP_URL, 'Duka');
    expect(mail.to).toBe(ALERTS);
    expect(mail.subject).toBe(`New paid order ${anOrder().orderNumber}: ${formatKsh(anOrder().totalPrice)}`);
    expectBoth(mail, [anOrder().user?.email ?? '', `${SHOP_URL}/order/${ORDER_ID}`]);
    expectMailSafeHtml(mail.html);
  });

  it('a new unpaid order says so', () => {
    const mail = newOrderAlertMail(ALERTS, anOrder(), SHOP_URL, 'Duka');
    expect(mail.subject).toMatch(/^New order \w+ \(not paid yet\)/);
    expect(mail.text).toContain('Not paid yet');
  });

  it('low stock lists each product with what is left and where to restock it, escaped', () => {
    const lines = [
      { productId: 'p1', name: `Towel ${SCRIPT}`, countInStock: 2 },
      { productId: 'p2', name: 'Kettle', countInStock: 0 },
    ];
    const mail = lowStockAlertMail(ALERTS, anOrder(), lines, 5, SHOP_URL, 'Duka');
    expect(mail.subject).toBe(`Low stock: 2 products after order ${anOrder().orderNumber}`);
    expectBoth(mail, ['2 left', 'Out of stock', 'threshold of 5', `${SHOP_URL}/admin/product/p2/edit`]);
    expect(mail.html).not.toContain(SCRIPT);
    expect(mail.text).toContain(`Towel ${SCRIPT}`);
    expectMailSafeHtml(mail.html);
    expect(lowStockAlertMail(ALERTS, anOrder(), [lines[1] ?? lines[0]!], 5, SHOP_URL, 'Duka').subject).toBe(
      'Low stock: Kettle (out of stock)',
    );
  });

  it('a payment exception gives the reason, the receipt and the Payments screen', () => {
    const mail = paymentExceptionAlertMail(
      ALERTS,
      { receipt: 'SKL4A7K2QZ', amount: 4412, phone: '254712345678', exception: 'unmatched', orderNumber: null },
      SHOP_URL,
      'Duka',
    );
    expect(mail.subject).toBe(`Payment needs attention: ${formatKsh(4412)} (SKL4A7K2QZ)`);
    expectBoth(mail, ['No order matched this payment', 'SKL4A7K2QZ', 'None matched', `${SHOP_URL}/admin/payments`]);
    expectMailSafeHtml(mail.html);
  });
});

describe('every mail', () => {
  const at = new Date('2026-11-24T09:41:00.000Z');
  /**
   * Each mail with a shop name and, where it names one, a customer name; and the key facts of its
   * subject, which its body must give too (in any case: "out of stock" is a cell's "Out of stock").
   */
  const mails: Record<string, { mail: (shopName: string, customer: string) => MailMessage; facts: string[] }> = {
    passwordResetMail: {
      mail: (shopName, customer) => passwordResetMail('w@example.com', customer, `${SHOP_URL}/reset-password/abc`, shopName),
      facts: ['Reset your', 'Duka', 'password'],
    },
    accountChangedMail: {
      mail: (shopName, customer) =>
        accountChangedMail('w@example.com', customer, { password: true, at, byAdmin: true }, SHOP_URL, shopName),
      facts: ['Your Duka password was changed'],
    },
    signInPausedMail: {
      mail: (shopName, customer) =>
        signInPausedMail(
          'w@example.com',
          customer,
          { at, failures: 10, windowMs: 900_000, pausedForMs: 900_000 },
          SHOP_URL,
          shopName,
        ),
      facts: ['Sign-in to your Duka account is paused'],
    },
    orderPlacedMail: {
      mail: (shopName, customer) =>
        orderPlacedMail(anOrder({ user: { ...anOrder().user!, name: customer } }), SHOP_URL, PAYBILL, shopName),
      facts: ['Duka', 'K7Q3M9XD', 'is placed'],
    },
    orderPaidMail: {
      mail: (shopName, customer) =>
        orderPaidMail(anOrder({ ...paid, user: { ...anOrder().user!, name: customer } }), SHOP_URL, undefined, shopName),
      facts: ['Payment received', 'Duka', 'K7Q3M9XD'],
    },
    orderDeliveredMail: {
      mail: (shopName, customer) =>
        orderDeliveredMail(anOrder({ ...delivered, user: { ...anOrder().user!, name: customer } }), SHOP_URL, shopName),
      facts: ['Duka', 'K7Q3M9XD', 'has been delivered'],
    },
    newOrderAlertMail: {
      mail: (shopName, customer) =>
        newOrderAlertMail(
          'owner@example.com',
          anOrder({ ...paid, user: { ...anOrder().user!, name: customer } }),
          SHOP_URL,
          shopName,
        ),
      facts: ['New paid order', 'K7Q3M9XD', 'Ksh. 4,411.32'],
    },
    lowStockAlertMail: {
      mail: (shopName) =>
        lowStockAlertMail(
          'owner@example.com',
          anOrder(),
          [{ productId: 'p2', name: 'Kettle', countInStock: 0 }],
          5,
          SHOP_URL,
          shopName,
        ),
      facts: ['Low stock', 'Kettle', 'out of stock'],
    },
    paymentExceptionAlertMail: {
      mail: (shopName) =>
        paymentExceptionAlertMail(
          'owner@example.com',
          { receipt: 'SKL4A7K2QZ', amount: 4412, phone: null, exception: 'unmatched', orderNumber: null },
          SHOP_URL,
          shopName,
        ),
      facts: ['attention', 'Ksh. 4,412.00', 'SKL4A7K2QZ'],
    },
    callbackParkedAlertMail: {
      mail: (shopName) =>
        callbackParkedAlertMail('owner@example.com', { kind: 'c2b_confirmation', receivedAt: at, tries: 8 }, SHOP_URL, shopName),
      facts: ['M-Pesa message', 'c2b_confirmation'],
    },
  };
  /** The merchant's alerts about stock and M-Pesa name no customer. */
  const withoutCustomer = new Set(['lowStockAlertMail', 'paymentExceptionAlertMail', 'callbackParkedAlertMail']);
  const HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=1>'];

  for (const [name, { mail, facts }] of Object.entries(mails)) {
    const namesCustomer = !withoutCustomer.has(name);
    for (const payload of HOSTILE) {
      it(`${name} escapes ${JSON.stringify(payload)} in the shop's${namesCustomer ? " and the customer's" : ''} name`, () => {
        const message = mail(`Soko ${payload}`, `Eve ${payload}`);
        expect(message.html).not.toContain(payload);
        expect(message.html).toContain(`Soko ${escapeHtml(payload)}`);
        expect(message.text).toContain(`Soko ${payload}`);
        if (namesCustomer) {
          expect(message.html).toContain(`Eve ${escapeHtml(payload)}`);
          expect(message.text).toContain(`Eve ${payload}`);
        }
        expectMailSafeHtml(message.html);
      });
    }

    it(`${name} says in its HTML what its subject says`, () => {
      const message = mail('Duka', 'Wanjiru Kamau');
      const body = message.html.slice(message.html.indexOf('<body'));
      expect(message.html).toContain(`<title>${escapeHtml(message.subject)}</title>`);
      for (const fact of facts) {
        expect(message.subject).toContain(fact);
        expect(body.toLowerCase()).toContain(escapeHtml(fact).toLowerCase());
      }
      expect(message.html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    });
  }
});
