import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';

const OFFLINE = 'Cannot reach the shop. Check your connection and try again.';
const UNEXPECTED = 'Something went wrong. Please try again.';

function isFetchError(error: unknown): error is FetchBaseQueryError {
  return typeof error === 'object' && error !== null && 'status' in error;
}

/**
 * The messages to show for a failed call. The server answers `{ errors: [{ msg }] }` (docs/product-rules.md, Errors);
 * a failure without such a body (offline, a proxy's HTML page) still gets a sensible message.
 */
export function errorMessages(error: FetchBaseQueryError | SerializedError | unknown): string[] {
  if (isFetchError(error)) {
    const data = error.data as { errors?: { msg?: unknown }[] } | undefined;
    const messages = Array.isArray(data?.errors)
      ? data.errors.map((e) => (typeof e?.msg === 'string' ? e.msg : '')).filter(Boolean)
      : [];
    if (messages.length > 0) return messages;
    if (error.status === 'FETCH_ERROR' || error.status === 'TIMEOUT_ERROR') return [OFFLINE];
    return [UNEXPECTED];
  }
  return [UNEXPECTED];
}

/** One line, for places that show a single message. */
export function errorMessage(error: unknown): string {
  return errorMessages(error).join(' ');
}

export function isUnauthorized(error: unknown): boolean {
  return isFetchError(error) && error.status === 401;
}
