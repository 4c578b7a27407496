/**
 * The shop's transactional mails, each as plain text and as HTML. Each is a function of its facts
 * that returns the message to queue; the HTML is a React element rendered to static markup, on the
 * one layout of `components/Layout.tsx`, written for mail clients rather than browsers (see
 * `components/theme.ts`). React escapes every value that comes from a person or the database, URLs
 * in href attributes included.
 */

export {
  type AccountChange,
  accountChangedMail,
  passwordResetMail,
  type SignInPause,
  signInPausedMail,
} from './mails/AccountMails.js';
export { type LowStockLine, lowStockAlertMail } from './mails/LowStockAlert.js';
export { newOrderAlertMail } from './mails/NewOrderAlert.js';
export { orderDeliveredMail } from './mails/OrderDelivered.js';
export { orderPaidMail } from './mails/OrderPaid.js';
export { orderPlacedMail } from './mails/OrderPlaced.js';
export {
  callbackParkedAlertMail,
  type ParkedCallbackAlert,
  type PaymentExceptionAlert,
  paymentExceptionAlertMail,
} from './mails/PaymentAlerts.js';
