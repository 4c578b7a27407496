import { describe, expect, it } from 'vitest';
import { manualPaymentForm, orderFrom, orderProblem, orderReference } from './payment-forms';

const ORDER = '0b6f7c1e-3a52-4d7e-9f1a-2c4b5d6e7f80';

describe('orders named by an admin', () => {
  it('accepts the full id or the order page’s link, and explains a shortened one', () => {
    expect(orderFrom(`  ${ORDER} `)).toBe(ORDER);
    expect(orderFrom(`https://shop.example.co.ke/order/${ORDER}?x=1`)).toBe(ORDER);
    expect(orderProblem(ORDER)).toBeNull();
    expect(orderReference(ORDER)).toEqual({ orderId: ORDER });
    expect(orderProblem('0b6f7c1e…')).toMatch(/only part of the id/);
    expect(orderProblem('')).toBe('Enter the order number');
    expect(orderProblem('not an id')).toBe('Not an order number or id. An order number is 8 letters and digits, like AFK785AQ');
  });

  it('accepts the order number as the M-Pesa statement shows it, in any case, with spaces or a dash', () => {
    for (const typed of ['AFK785AQ', 'afk785aq', 'AFK7 85AQ', 'AFK7-85AQ']) {
      expect(orderProblem(typed), typed).toBeNull();
      expect(orderReference(typed), typed).toEqual({ orderNumber: 'AFK785AQ' });
    }
    // 0, O, 1 and I are never in an order number.
    expect(orderProblem('AFK785A0')).toMatch(/^Not an order number or id/);
  });

  it('checks a manual entry with the server’s rules before sending it', () => {
    const bad = manualPaymentForm.safeParse({ orderId: '0b6f7c1e', receipt: 'x', amount: '', phone: '' });
    expect(bad.success).toBe(false);
    expect([...new Set(bad.error?.issues.map((issue) => issue.path[0]))].sort()).toEqual(['amount', 'orderId', 'receipt']);
    const good = manualPaymentForm.safeParse({ orderId: ORDER, receipt: ' skl4a7k2qz ', amount: '502', phone: '' });
    expect(good).toEqual({ success: true, data: { orderId: ORDER, receipt: 'SKL4A7K2QZ', amount: 502 } });
  });
});
