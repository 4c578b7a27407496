import { describe, expect, it } from 'vitest';
import { checkoutRequestId, mpesaReceipt, nairobiTimestamp, stkPassword } from './wire.js';

/** The simulator's wire helpers: the STK password, Nairobi timestamps, ids and receipts. */

const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';

describe('wire helpers', () => {
  it('computes the password test vector', () => {
    expect(stkPassword('174379', PASSKEY, '20240315143005')).toBe(
      'MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMjQwMzE1MTQzMDA1',
    );
  });

  it('formats timestamps, CheckoutRequestIDs and receipts in Nairobi time', () => {
    const at = new Date('2024-03-15T11:30:06.123Z'); // 14:30:06.123 in Nairobi
    expect(nairobiTimestamp(at)).toBe('20240315143006');
    expect(nairobiTimestamp(new Date('2024-12-31T22:00:00Z'))).toBe('20250101010000');
    expect(checkoutRequestId(at, '254708374149')).toBe('ws_CO_15032024143006123708374149');
    const receipt = mpesaReceipt(at);
    expect(receipt).toMatch(/^[A-Z][A-Z0-9]{9}$/);
    expect(receipt.slice(0, 3)).toBe('SCF');
  });
});
