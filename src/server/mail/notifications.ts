import type { Order } from '../../shared/schemas/orders.js';
import type { Queryable } from '../db/client.js';
import type { LipaNaMpesa } from '../mpesa/lipa-na-mpesa.js';
import { enqueueMail } from './queue.js';
import {
  type AccountChange,
  accountChangedMail,
  orderDeliveredMail,
  orderPaidMail,
  orderPlacedMail,
  passwordResetMail,
} from './templates.js';

/**
 * The mails the shop sends, each queued in the transaction of the change that causes it, so a
 * mail exists exactly when its order, payment or reset does.
 */
export interface Notifications {
  passwordReset(q: Queryable, to: string, name: string, link: string): Promise<void>;
  /** To the address the account had before the change. */
  accountChanged(q: Queryable, to: string, name: string, change: AccountChange): Promise<void>;
  orderPlaced(q: Queryable, order: Order): Promise<void>;
  /** `amountPaid`: the shillings M-Pesa charged, when the payment came through M-Pesa. */
  orderPaid(q: Queryable, order: Order, amountPaid?: number): Promise<void>;
  orderDelivered(q: Queryable, order: Order): Promise<void>;
}

/** `queued` is told after each message, so the worker can deliver it without waiting for its next poll. */
export function createNotifications(shopUrl: string, lipaNaMpesa: LipaNaMpesa, queued: () => void): Notifications {
  return {
    async passwordReset(q, to, name, link) {
      await enqueueMail(q, 'password_reset', passwordResetMail(to, name, link));
      queued();
    },
    async accountChanged(q, to, name, change) {
      await enqueueMail(q, 'account_changed', accountChangedMail(to, name, change, shopUrl));
      queued();
    },
    async orderPlaced(q, order) {
      if (!order.user) return;
      await enqueueMail(q, 'order_placed', orderPlacedMail(order, shopUrl, lipaNaMpesa));
      queued();
    },
    async orderPaid(q, order, amountPaid) {
      if (!order.user) return;
      await enqueueMail(q, 'order_paid', orderPaidMail(order, shopUrl, amountPaid));
      queued();
    },
    async orderDelivered(q, order) {
      if (!order.user) return;
      await enqueueMail(q, 'order_delivered', orderDeliveredMail(order, shopUrl));
      queued();
    },
  };
}
