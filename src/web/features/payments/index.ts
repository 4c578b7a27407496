/**
 * What the payments feature offers other features: the order screen's payment panel (the prompt,
 * its status, the Paybill details, the admin's record of a payment). Everything else in this
 * folder is its own; other features import only this file and ./api.ts.
 */
export { default as LipaNaMpesaDetails } from './lipa-na-mpesa-details';
export { default as PayOrder } from './pay-order';
export { default as PaymentStatus } from './payment-status';
export { default as RecordOrderPayment } from './record-order-payment';
