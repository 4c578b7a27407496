import type { Order } from '../../shared/schemas/orders.js';
import type { Queryable } from '../db/client.js';
import { readSettings } from '../domain/settings.js';
import type { LipaNaMpesa } from '../payments/lipa-na-mpesa.js';
import { enqueueMail } from './queue.js';
import {
  type AccountChange,
  accountChangedMail,
  callbackParkedAlertMail,
  type LowStockLine,
  lowStockAlertMail,
  newOrderAlertMail,
  orderDeliveredMail,
  orderPaidMail,
  orderPlacedMail,
  type ParkedCallbackAlert,
  type PaymentExceptionAlert,
  passwordResetMail,
  paymentExceptionAlertMail,
  type SignInPause,
  signInPausedMail,
} from './templates.js';

/**
 * The mails the shop sends, each queued in the transaction of the change that causes it, so a
 * mail exists exactly when its order, payment or reset does. Each reads the settings in that
 * transaction too: the shop's name as it is now, and for the merchant's alerts (docs/settings.md)
 * where they go. An empty alert address sends no alert.
 */
export interface Notifications {
  passwordReset(q: Queryable, to: string, name: string, link: string): Promise<void>;
  /** To the address the account had before the change. */
  accountChanged(q: Queryable, to: string, name: string, change: AccountChange): Promise<void>;
  /** To the account's owner: wrong passwords paused its sign-in. */
  signInPaused(q: Queryable, to: string, name: string, pause: SignInPause): Promise<void>;
  /** To the shopper; to the merchant too when they asked to hear of unpaid orders (or it is paid already). */
  orderPlaced(q: Queryable, order: Order): Promise<void>;
  /** `amountPaid`: the shillings M-Pesa charged, when the payment came through M-Pesa. To the shopper and the merchant. */
  orderPaid(q: Queryable, order: Order, amountPaid?: number): Promise<void>;
  orderDelivered(q: Queryable, order: Order): Promise<void>;
  /** To the merchant: `order` left these products at or below the low-stock threshold. */
  lowStock(q: Queryable, order: Order, lines: readonly LowStockLine[]): Promise<void>;
  /** To the merchant: a payment the ledger holds as an exception. */
  paymentException(q: Queryable, payment: PaymentExceptionAlert): Promise<void>;
  /** To the merchant: an M-Pesa message that failed every try, parked. */
  callbackParked(q: Queryable, parked: ParkedCallbackAlert): Promise<void>;
}

/** `queued` is told after each message, so the worker can deliver it without waiting for its next poll. */
export function createNotifications(shopUrl: string, lipaNaMpesa: LipaNaMpesa, queued: () => void): Notifications {
  return {
    async passwordReset(q, to, name, link) {
      const { shopName } = await readSettings(q);
      await enqueueMail(q, 'password_reset', passwordResetMail(to, name, link, shopName));
      queued();
    },
    async accountChanged(q, to, name, change) {
      const { shopName } = await readSettings(q);
      await enqueueMail(q, 'account_changed', accountChangedMail(to, name, change, shopUrl, shopName));
      queued();
    },
    async signInPaused(q, to, name, pause) {
      const { shopName } = await readSettings(q);
      await enqueueMail(q, 'sign_in_paused', signInPausedMail(to, name, pause, shopUrl, shopName));
      queued();
    },
    async orderPlaced(q, order) {
      const settings = await readSettings(q);
      if (order.user) await enqueueMail(q, 'order_placed', orderPlacedMail(order, shopUrl, lipaNaMpesa, settings.shopName));
      // A paid order is announced when it is paid; an unpaid one only if the merchant asked.
      if (settings.alertEmail && !order.isPaid && settings.alertOnUnpaidOrders) {
        await enqueueMail(q, 'merchant_new_order', newOrderAlertMail(settings.alertEmail, order, shopUrl, settings.shopName));
      }
      queued();
    },
    async orderPaid(q, order, amountPaid) {
      const settings = await readSettings(q);
      if (order.user) {
        await enqueueMail(q, 'order_paid', orderPaidMail(order, shopUrl, amountPaid, settings.shopName));
      }
      if (settings.alertEmail) {
        await enqueueMail(q, 'merchant_new_order', newOrderAlertMail(settings.alertEmail, order, shopUrl, settings.shopName));
      }
      queued();
    },
    async orderDelivered(q, order) {
      if (!order.user) return;
      const { shopName } = await readSettings(q);
      await enqueueMail(q, 'order_delivered', orderDeliveredMail(order, shopUrl, shopName));
      queued();
    },
    async lowStock(q, order, lines) {
      const settings = await readSettings(q);
      if (!settings.alertEmail) return;
      const mail = lowStockAlertMail(settings.alertEmail, order, lines, settings.lowStockThreshold, shopUrl, settings.shopName);
      await enqueueMail(q, 'merchant_low_stock', mail);
      queued();
    },
    async paymentException(q, payment) {
      const settings = await readSettings(q);
      if (!settings.alertEmail) return;
      await enqueueMail(
        q,
        'merchant_payment_exception',
        paymentExceptionAlertMail(settings.alertEmail, payment, shopUrl, settings.shopName),
      );
      queued();
    },
    async callbackParked(q, parked) {
      const settings = await readSettings(q);
      if (!settings.alertEmail) return;
      await enqueueMail(
        q,
        'merchant_callback_parked',
        callbackParkedAlertMail(settings.alertEmail, parked, shopUrl, settings.shopName),
      );
      queued();
    },
  };
}
