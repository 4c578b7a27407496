import { and, count, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { MAIL_STATUSES, type MailQueueView, type MailStatus, type QueuedMail } from '../../shared/schemas/mail.js';
import type { Db, Queryable } from '../db/client.js';
import { mailQueue } from '../db/schema.js';
import type { MailMessage, MailTransport } from './mailer.js';

export type MailKind =
  | 'password_reset'
  | 'account_changed'
  | 'sign_in_paused'
  | 'order_placed'
  | 'order_paid'
  | 'order_delivered'
  /** To the merchant's alert address (docs/settings.md). */
  | 'merchant_new_order'
  | 'merchant_low_stock'
  | 'merchant_payment_exception'
  | 'merchant_callback_parked';

/** Puts a message in the queue, in the caller's transaction when there is one. */
export async function enqueueMail(db: Queryable, kind: MailKind, message: MailMessage): Promise<void> {
  await db.insert(mailQueue).values({
    kind,
    toAddress: message.to,
    subject: message.subject,
    textBody: message.text,
    htmlBody: message.html,
  });
}

export interface MailWorkerOptions {
  pollIntervalMs: number;
  /** The first retry waits this long, each next one twice as long (capped at an hour). */
  retryBaseMs: number;
  maxAttempts: number;
}

/** A message left in `sending` this long (its instance died mid-send) is queued again. */
const STALE_SENDING_MS = 5 * 60_000;
const MAX_BACKOFF_MS = 60 * 60_000;

/**
 * Delivers queued mail. Each pass claims due messages with SKIP LOCKED, so several instances
 * share the work and each message goes out once; a failure is retried with backoff until
 * maxAttempts, then marked failed for an admin to see.
 */
export class MailWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private rerun = false;

  constructor(
    private readonly db: Db,
    private readonly transport: MailTransport,
    private readonly options: MailWorkerOptions,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.nudge(), this.options.pollIntervalMs);
    this.timer.unref();
    this.nudge();
  }

  /** Runs a pass soon (after the enqueuing transaction has committed), or once more after the current one. */
  nudge(): void {
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = new Promise((resolve) => setTimeout(resolve, 50))
      .then(() => this.runOnce())
      .catch((error: unknown) => this.log.warn({ err: error }, 'mail queue pass failed; will retry'))
      .finally(() => {
        this.running = undefined;
        if (this.rerun) {
          this.rerun = false;
          this.nudge();
        }
      });
  }

  /** One pass: deliver every due message (in batches). Returns how many were sent. */
  async runOnce(): Promise<{ sent: number; failed: number }> {
    await this.db
      .update(mailQueue)
      .set({ status: 'queued', updatedAt: sql`now()` })
      .where(and(eq(mailQueue.status, 'sending'), lt(mailQueue.updatedAt, new Date(Date.now() - STALE_SENDING_MS))));
    let sent = 0;
    let failed = 0;
    for (;;) {
      const batch = await this.db
        .update(mailQueue)
        .set({ status: 'sending', attempts: sql`${mailQueue.attempts} + 1`, updatedAt: sql`now()` })
        .where(
          inArray(
            mailQueue.id,
            sql`(SELECT id FROM ${mailQueue} WHERE status = 'queued' AND next_attempt_at <= now()
                  ORDER BY created_at LIMIT 10 FOR UPDATE SKIP LOCKED)`,
          ),
        )
        .returning();
      if (batch.length === 0) return { sent, failed };
      for (const message of batch) {
        try {
          const where = await this.transport.send({
            to: message.toAddress,
            subject: message.subject,
            text: message.textBody,
            html: message.htmlBody,
          });
          await this.db
            .update(mailQueue)
            .set({ status: 'sent', sentAt: sql`now()`, deliveredTo: where, lastError: null, updatedAt: sql`now()` })
            .where(eq(mailQueue.id, message.id));
          this.log.info({ mailId: message.id, kind: message.kind, deliveredTo: where }, 'mail sent');
          sent += 1;
        } catch (error) {
          const giveUp = message.attempts >= this.options.maxAttempts;
          const wait = Math.min(MAX_BACKOFF_MS, this.options.retryBaseMs * 2 ** (message.attempts - 1));
          await this.db
            .update(mailQueue)
            .set({
              status: giveUp ? 'failed' : 'queued',
              lastError: error instanceof Error ? error.message.slice(0, 500) : String(error),
              nextAttemptAt: new Date(Date.now() + wait),
              updatedAt: sql`now()`,
            })
            .where(eq(mailQueue.id, message.id));
          this.log.warn(
            { mailId: message.id, kind: message.kind, attempts: message.attempts, giveUp, err: error },
            'mail not sent',
          );
          failed += 1;
        }
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.rerun = false;
    await this.running;
    this.transport.close();
  }
}

/** How many messages are in each state (GET /metrics). */
export async function mailQueueDepth(db: Db): Promise<Record<MailStatus, number>> {
  const counted = await db.select({ status: mailQueue.status, n: count() }).from(mailQueue).groupBy(mailQueue.status);
  const counts = Object.fromEntries(MAIL_STATUSES.map((s) => [s, 0])) as Record<MailStatus, number>;
  for (const row of counted) if (row.status in counts) counts[row.status as MailStatus] = Number(row.n);
  return counts;
}

/** The newest messages and the count in each state, for the admin. */
export async function recentMail(db: Db, status: MailStatus | undefined, limit = 100): Promise<MailQueueView> {
  const rows = await db
    .select()
    .from(mailQueue)
    .where(status ? eq(mailQueue.status, status) : undefined)
    .orderBy(desc(mailQueue.createdAt))
    .limit(limit);
  const counts = await mailQueueDepth(db);
  const messages: QueuedMail[] = rows.map((row) => ({
    _id: row.id,
    kind: row.kind,
    to: row.toAddress,
    subject: row.subject,
    status: row.status as MailStatus,
    attempts: row.attempts,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.nextAttemptAt.toISOString(),
    sentAt: row.sentAt?.toISOString() ?? null,
  }));
  return { messages, counts };
}
