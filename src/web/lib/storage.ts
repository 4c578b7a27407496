/**
 * Browser storage under the keys of docs/product-rules.md (Data): `user` holds the public user
 * object, `cart` the cart with its shipping address and totals; `followedPayment` the order whose
 * M-Pesa prompt the payment banner follows. Unreadable or foreign values
 * are treated as absent rather than crashing the app.
 */
export type StorageKey = 'user' | 'cart' | 'followedPayment';

export function readStored<T>(key: StorageKey, isValid: (value: unknown) => value is T): T | undefined {
  try {
    const raw = localStorage.getItem(key);
    if (raw === null) return undefined;
    const value: unknown = JSON.parse(raw);
    return isValid(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function writeStored(key: StorageKey, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private browsing or a full quota: the app keeps working from memory.
  }
}

export function removeStored(key: StorageKey): void {
  try {
    localStorage.removeItem(key);
  } catch {
    // As above.
  }
}
