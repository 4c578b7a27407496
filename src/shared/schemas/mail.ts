import { z } from 'zod';

/** The states of a queued mail: waiting (or waiting to retry), being sent, delivered, given up. */
export const MAIL_STATUSES = ['queued', 'sending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];
export const mailStatus = z.enum(MAIL_STATUSES, { error: 'status must be queued, sending, sent or failed' });

/** One message of the mail queue as the admin sees it. */
export const queuedMail = z.object({
  _id: z.string(),
  kind: z.string(),
  to: z.string(),
  subject: z.string(),
  status: mailStatus,
  attempts: z.number(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  nextAttemptAt: z.string(),
  sentAt: z.string().nullable(),
});
export type QueuedMail = z.infer<typeof queuedMail>;

/** GET /api/admin/mail: the newest messages and how many are in each state. */
export const mailQueueView = z.object({
  messages: z.array(queuedMail),
  counts: z.record(mailStatus, z.number()),
});
export type MailQueueView = z.infer<typeof mailQueueView>;
