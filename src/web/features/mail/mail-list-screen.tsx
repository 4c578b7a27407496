import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { nairobiMinute } from '../../../shared/dates';
import { MAIL_STATUSES, type MailStatus, type QueuedMail } from '../../../shared/schemas/mail';
import { type ListColumn, ResponsiveList } from '../../components/list/table-parts';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { useListSearch } from '../../hooks/use-list-search';
import { errorMessage } from '../../lib/errors';
import { useGetMailQueueQuery } from './api';

const STATUS_VARIANT: Record<MailStatus, string> = { queued: 'warning', sending: 'info', sent: 'success', failed: 'danger' };
const KIND_LABEL: Record<string, string> = {
  password_reset: 'Password reset',
  order_placed: 'Order placed',
  order_paid: 'Payment received',
  order_delivered: 'Order delivered',
};

/** The status filter in the address (?status=failed); anything else shows every mail. */
function statusFrom(value: string | null): MailStatus | '' {
  return MAIL_STATUSES.find((s) => s === value) ?? '';
}

const MAIL_COLUMNS: readonly ListColumn<QueuedMail>[] = [
  { header: 'DATE', cell: (m) => nairobiMinute(m.createdAt), nowrap: true },
  { header: 'TO', cell: (m) => m.to },
  {
    header: 'MAIL',
    cell: (m) => (
      <>
        <div>{KIND_LABEL[m.kind] ?? m.kind}</div>
        <div className="small text-body-secondary">{m.subject}</div>
        {m.lastError && m.status !== 'sent' && <div className="small text-danger">{m.lastError}</div>}
      </>
    ),
  },
  {
    header: 'STATUS',
    cell: (m) => (
      <Badge bg={STATUS_VARIANT[m.status]} text={m.status === 'queued' ? 'dark' : undefined}>
        {m.status}
      </Badge>
    ),
  },
  { header: 'ATTEMPTS', cell: (m) => m.attempts },
];

/**
 * The newest mails the shop sent or is trying to send, so the owner sees a mail server outage.
 * The status filter is in the address, as on the other admin lists.
 */
export default function MailListScreen() {
  const list = useListSearch({ path: paths.admin.mail });
  const status = statusFrom(list.params.get('status'));
  const { data, isLoading, isFetching, error, refetch } = useGetMailQueueQuery(status);

  return (
    <>
      <PageTitle title="Mail" />
      <div className="d-flex flex-wrap align-items-center justify-content-between gap-2 mb-3">
        <h1 className="h2 mb-0">Mail</h1>
        <Button variant="outline-dark" onClick={() => refetch()} disabled={isFetching}>
          {isFetching ? 'Refreshing…' : 'Refresh'}
        </Button>
      </div>
      {data && <p className="text-body-secondary">{MAIL_STATUSES.map((s) => `${data.counts[s] ?? 0} ${s}`).join(' · ')}</p>}
      <Form.Group controlId="mail-filter-status" className="mb-3" style={{ maxWidth: '16rem' }}>
        <Form.Label>Status</Form.Label>
        <Form.Select value={status} onChange={(e) => list.update({ status: e.target.value })}>
          <option value="">All</option>
          <option value="queued">Queued</option>
          <option value="sending">Sending</option>
          <option value="sent">Sent</option>
          <option value="failed">Failed</option>
        </Form.Select>
      </Form.Group>
      {isLoading ? (
        <Loader label="Loading mail…" />
      ) : error ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !data || data.messages.length === 0 ? (
        <Message>No mail yet</Message>
      ) : (
        <ResponsiveList label="Mail" items={data.messages} rowKey={(m) => m._id} columns={MAIL_COLUMNS} />
      )}
    </>
  );
}
