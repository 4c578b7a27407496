/**
 * The shop's transactional mails, each as plain text and as HTML. Each is a function of its facts
 * that returns the message to queue; the HTML is a React element rendered to static markup, on the
 * one layout of `components/layout.tsx`, written for mail clients rather than browsers (see
 * `components/theme.ts`). React escapes every value that comes from a person or the database, URLs
 * in href attributes included.
 */

export {
  type AccountChange,
  accountChangedMail,
  passwordResetMail,
  type SignInPause,
  signInPausedMail,
} from './mails/account-mails.js';
export { type LowStockLine, lowStockAlertMail } from './mails/low-stock-alert.js';
export { newOrderAlertMail } from './mails/new-order-alert.js';
export { orderDeliveredMail } from './mails/order-delivered.js';
export { orderPaidMail } from './mails/order-paid.js';
export { orderPlacedMail } from './mails/order-placed.js';
export {
  callbackParkedAlertMail,
  type ParkedCallbackAlert,
  type PaymentExceptionAlert,
  paymentExceptionAlertMail,
} from './mails/payment-alerts.js';
