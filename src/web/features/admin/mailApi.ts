import { api } from '../../app/api';

export type MailStatus = 'queued' | 'sending' | 'sent' | 'failed';

export interface QueuedMail {
  _id: string;
  kind: string;
  to: string;
  subject: string;
  status: MailStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string;
  sentAt: string | null;
}

export interface MailQueueView {
  messages: QueuedMail[];
  counts: Record<MailStatus, number>;
}

/** The shop's mail queue, as the admin sees it (GET /api/admin/mail). */
export const mailApi = api.injectEndpoints({
  endpoints: (build) => ({
    getMailQueue: build.query<MailQueueView, MailStatus | ''>({
      query: (status) => ({ url: '/admin/mail', params: status ? { status } : {} }),
    }),
  }),
});

export const { useGetMailQueueQuery } = mailApi;
