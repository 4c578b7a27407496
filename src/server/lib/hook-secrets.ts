import { createHmac } from 'node:crypto';

/**
 * The kinds of call Daraja makes to the shop, each to URLs with a secret of its own: the STK
 * result (stk), Paybill/Till confirmation and validation (c2b), and the Results and queue-timeout
 * notices of Reversal (rev) and Transaction Status (ts).
 */
export const HOOK_KINDS = ['stk', 'c2b', 'rev', 'ts'] as const;
export type HookSecretKind = (typeof HOOK_KINDS)[number];

/**
 * The secret in the path of one kind's callback URLs: HMAC-SHA256 of the kind's name under
 * MPESA_CALLBACK_SECRET, in base64url (43 characters, safe in a path). A URL that leaks (a Result
 * URL in a support ticket, a C2B URL on the Daraja portal) opens that kind's hooks and no other,
 * and tells nothing of MPESA_CALLBACK_SECRET. The one place the shop derives them.
 */
export function hookSecret(callbackSecret: string, kind: HookSecretKind): string {
  return createHmac('sha256', callbackSecret).update(kind).digest('base64url');
}
