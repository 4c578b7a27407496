import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import { Link } from 'react-router';
import type { LedgerFilter } from '../../../shared/schemas/payments';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import Paginate from '../../components/paginate';
import { paths } from '../../config/paths';
import { useListSearch } from '../../hooks/use-list-search';
import { errorMessage } from '../../lib/errors';
import { paymentsApi, REFUND_POLL_MS, useGetLedgerQuery } from './api';
import PaymentCard from './payment-card';
import RecordPaymentForm from './record-payment-form';
import './payments.css';

const FILTERS: { value: LedgerFilter; label: string; empty: string }[] = [
  { value: 'all', label: 'All', empty: 'No M-Pesa payments yet.' },
  { value: 'exception', label: 'Exceptions', empty: 'No exceptions: every payment is accounted for.' },
  { value: 'unmatched', label: 'Unmatched', empty: 'No unmatched payments.' },
  // Paybill payments wait here for M-Pesa's Transaction Status, and stay if M-Pesa does not confirm them.
  { value: 'unconfirmed', label: 'Unconfirmed', empty: 'No unconfirmed payments.' },
];

/** The filter in the address (?status=exception); anything unknown shows them all. */
export function filterFrom(value: string | null): LedgerFilter {
  return FILTERS.find((f) => f.value === value)?.value ?? 'all';
}

/**
 * The M-Pesa ledger, newest first: every payment the shop learned of, each exception with its
 * reason and what can be done about it. The filter and page are in the address, so a view can be
 * linked and survives a reload.
 */
export default function PaymentListScreen() {
  const list = useListSearch({ path: paths.admin.payments(), pageParam: 'pageNumber' });
  const { page } = list;
  const status = filterFrom(list.params.get('status'));
  const ledgerArgs = { status, pageNumber: page };
  // A refund waits for M-Pesa's result: ask again while one on the page still does (an
  // unanswered one is listed for the admin and waits for nothing).
  const { data: shown } = paymentsApi.endpoints.getLedger.useQueryState(ledgerArgs);
  const refundsPending =
    shown?.payments.some((p) => p.status === 'refund_pending' && p.exception !== 'refund_unanswered') ?? false;
  const { data, isLoading, isFetching, error } = useGetLedgerQuery(ledgerArgs, {
    pollingInterval: refundsPending ? REFUND_POLL_MS : 0,
  });
  const filter = FILTERS.find((f) => f.value === status) ?? FILTERS[0]!;
  // On a phone the manual-entry form would fill the first screen and push the ledger below it:
  // there it opens from a button. From lg up it is always shown (the button is hidden).
  const [recording, setRecording] = useState(false);

  return (
    <>
      <PageTitle title="Payments" />
      <h1 className="h2 mb-3">Payments</h1>

      <Button
        variant="outline-success"
        className="tap-target d-lg-none mb-3"
        aria-expanded={recording}
        aria-controls="record-payment"
        onClick={() => setRecording((open) => !open)}
      >
        Record a payment from the statement
      </Button>
      <div id="record-payment" className={recording ? undefined : 'd-none d-lg-block'}>
        <RecordPaymentForm />
      </div>

      <nav aria-label="Which payments" className="d-flex flex-wrap align-items-start gap-2 mb-3">
        <ul className="nav nav-pills gap-2 me-auto ledger-filters">
          {FILTERS.map((f) => (
            <li key={f.value} className="nav-item">
              <Link
                to={paths.admin.payments(f.value)}
                className={`nav-link tap-target d-flex align-items-center border${f.value === status ? ' active' : ''}`}
                aria-current={f.value === status ? 'page' : undefined}
              >
                {f.label}
              </Link>
            </li>
          ))}
        </ul>
        <a
          className="btn btn-outline-dark tap-target d-inline-flex align-items-center"
          href={status === 'all' ? '/api/admin/exports/payments.csv' : `/api/admin/exports/payments.csv?status=${status}`}
          download
        >
          Export CSV
        </a>
      </nav>

      {isLoading ? (
        <Loader label="Loading payments…" />
      ) : error ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !data || data.payments.length === 0 ? (
        <Message>
          {page > 1 ? 'There are no payments on this page.' : filter.empty}{' '}
          {page > 1 && (
            <Link to={list.pageLink(1)} className="alert-link">
              Back to the first page
            </Link>
          )}
        </Message>
      ) : (
        <div className={isFetching ? 'opacity-75' : undefined} aria-busy={isFetching}>
          <ul className="list-unstyled row row-cols-1 row-cols-lg-2 g-3" aria-label={`${filter.label} payments`}>
            {data.payments.map((payment) => (
              <li key={payment._id} className="col">
                <PaymentCard payment={payment} />
              </li>
            ))}
          </ul>
          <Paginate pages={data.pages} page={data.page} linkTo={list.pageLink} />
        </div>
      )}
    </>
  );
}
