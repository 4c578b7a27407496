/**
 * Order numbers: what a shopper reads aloud, writes down and types into M-Pesa as the Paybill
 * account number, and what the STK push sends as its AccountReference (at most 12 characters).
 * Eight characters from an alphabet without 0/O and 1/I, so none can be misread: 32^8, about a
 * trillion numbers, drawn at random.
 */
export const ORDER_NUMBER_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
export const ORDER_NUMBER_LENGTH = 8;

/** What a person typed, as the number it means (case, spaces and dashes ignored); undefined when it cannot be one. */
export function normaliseOrderNumber(typed: string): string | undefined {
  const compact = typed.replace(/[\s-]+/g, '').toUpperCase();
  if (compact.length !== ORDER_NUMBER_LENGTH) return undefined;
  for (const char of compact) if (!ORDER_NUMBER_ALPHABET.includes(char)) return undefined;
  return compact;
}
