import type { MailQueueView, MailStatus } from '../../../shared/schemas/mail';
import { api } from '../../lib/api';

/** The shop's mail queue, as the admin sees it (GET /api/admin/mail). */
export const mailApi = api.injectEndpoints({
  endpoints: (build) => ({
    getMailQueue: build.query<MailQueueView, MailStatus | ''>({
      query: (status) => ({ url: '/admin/mail', params: status ? { status } : {} }),
    }),
  }),
});

export const { useGetMailQueueQuery } = mailApi;
