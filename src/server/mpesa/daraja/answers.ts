/** Reading Daraja's JSON answers, and the errors made from them. */
import { DarajaError } from '../daraja-errors.js';

/** Removes the client's secrets (and `extra` ones) from a text that may end up in an error message. */
export type Scrubber = (...extra: string[]) => (s: string) => string;

export function rejected(message: string): DarajaError {
  return new DarajaError(message, { kind: 'rejected' });
}

/** An answer whose ResponseCode is not "0": M-Pesa's own words, scrubbed and cut short. */
export function refused(scrub: Scrubber, said: string, status: number, errorCode: string): DarajaError {
  return new DarajaError(`M-Pesa refused the request: ${scrub()(said).slice(0, 300)}`, {
    kind: 'rejected',
    status,
    errorCode,
  });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function str(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}
