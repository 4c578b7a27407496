import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { nairobiDay, nairobiMinute } from '../../../shared/dates';
import type { Order } from '../../../shared/schemas/orders';
import ConfirmDialog from '../../components/confirm-dialog';
import { CrossIcon } from '../../components/icons';
import { ListSearchField } from '../../components/list/list-controls';
import { buttonSize, type ListColumn, ResponsiveList, RowActions } from '../../components/list/table-parts';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import Paginate from '../../components/paginate';
import Price from '../../components/price';
import { paths } from '../../config/paths';
import { useConfirmedDelete } from '../../hooks/use-confirmed-delete';
import { useListSearch } from '../../hooks/use-list-search';
import { errorMessage } from '../../lib/errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { type OrderListParams, useDeleteOrderMutation, useGetOrdersPageQuery, useMarkPaidMutation } from './api';

/** A filter choice as kept in the address: '' for all, else 'true' or 'false'. */
type FlagChoice = '' | 'true' | 'false';

function flagChoice(value: string | null): FlagChoice {
  return value === 'true' || value === 'false' ? value : '';
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function dayChoice(value: string | null): string {
  return value && DAY.test(value) ? value : '';
}

/** `to` is a day, or an instant when a link asks for orders placed up to a moment (the dashboard's "unpaid after a day"). */
function toChoice(value: string | null): string {
  if (!value) return '';
  return DAY.test(value) || (value.includes('T') && !Number.isNaN(Date.parse(value))) ? value : '';
}

/** The CSV export of what the list shows: the same filters, every page. */
function exportAddress(filters: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));
  const text = query.toString();
  return text ? `/api/admin/exports/orders.csv?${text}` : '/api/admin/exports/orders.csv';
}

const columns: ListColumn<Order>[] = [
  {
    header: 'ID',
    // The short order number people quote; the full id on hover.
    cell: (order) => (
      <span className="font-monospace" title={order._id}>
        {order.orderNumber}
      </span>
    ),
  },
  {
    header: 'USER',
    cell: (order) => (order.user ? order.user.name : <em className="text-body-secondary">Deleted user</em>),
    nowrap: true,
  },
  { header: 'DATE', cell: (order) => nairobiDay(order.createdAt), nowrap: true },
  { header: 'TOTAL', cell: (order) => <Price value={order.totalPrice} />, nowrap: true },
  {
    header: 'PAID',
    cell: (order) => (order.paidAt ? nairobiDay(order.paidAt) : <CrossIcon className="text-danger" title="Not paid" />),
    nowrap: true,
  },
  {
    header: 'DELIVERED',
    cell: (order) =>
      order.deliveredAt ? nairobiDay(order.deliveredAt) : <CrossIcon className="text-danger" title="Not delivered" />,
    nowrap: true,
  },
];

/**
 * The orders, newest first, a page at a time (docs/product-rules.md, Screens: Admin order list), with payment, delivery
 * and date filters and a search, all kept in the address. "To deliver" is paid and not delivered:
 * what the merchant has to send out next.
 */
export default function OrderListScreen() {
  const list = useListSearch({ path: paths.admin.orders });
  const { page, keyword, update } = list;
  const paid = flagChoice(list.params.get('isPaid'));
  const delivered = flagChoice(list.params.get('isDelivered'));
  const from = dayChoice(list.params.get('from'));
  const to = toChoice(list.params.get('to'));
  const toInstant = to !== '' && !DAY.test(to);
  const filtering = paid !== '' || delivered !== '' || from !== '' || to !== '' || keyword !== '';
  const toDeliver = paid === 'true' && delivered === 'false';

  const params: OrderListParams = {
    pageNumber: page,
    ...(paid !== '' && { isPaid: paid === 'true' }),
    ...(delivered !== '' && { isDelivered: delivered === 'true' }),
    ...(from && { from }),
    ...(to && { to }),
    ...(keyword && { keyword }),
  };
  const { data, isLoading, isFetching, error } = useGetOrdersPageQuery(params);
  const [deleteOrder] = useDeleteOrderMutation();
  const deletion = useConfirmedDelete((order: Order) => deleteOrder(order._id).unwrap());
  const [markPaid, { isLoading: marking, originalArgs: markingId }] = useMarkPaidMutation();

  async function markAsPaid(order: Order) {
    try {
      await markPaid(order._id).unwrap();
      toastSuccess('Order marked as paid');
    } catch (err) {
      toastErrors(err);
    }
  }

  return (
    <>
      <PageTitle title="Orders" />
      <h1 className="h2 mb-3">Orders</h1>

      <Form className="mb-3" onSubmit={list.submitSearch} aria-label="Filter orders">
        <Row className="g-2 align-items-end">
          <Col xs={12} lg={4}>
            <ListSearchField
              id="order-search"
              label="Search orders"
              placeholder="Order number, name, email or phone"
              value={list.searchText}
              onChange={list.setSearchText}
            />
          </Col>
          <Col xs={6} md={3} lg={2}>
            <Form.Group controlId="order-filter-paid">
              <Form.Label>Payment</Form.Label>
              <Form.Select value={paid} onChange={(e) => update({ isPaid: e.target.value })}>
                <option value="">All</option>
                <option value="true">Paid</option>
                <option value="false">Unpaid</option>
              </Form.Select>
            </Form.Group>
          </Col>
          <Col xs={6} md={3} lg={2}>
            <Form.Group controlId="order-filter-delivered">
              <Form.Label>Delivery</Form.Label>
              <Form.Select value={delivered} onChange={(e) => update({ isDelivered: e.target.value })}>
                <option value="">All</option>
                <option value="true">Delivered</option>
                <option value="false">Not delivered</option>
              </Form.Select>
            </Form.Group>
          </Col>
          <Col xs={6} md={3} lg={2}>
            <Form.Group controlId="order-filter-from">
              <Form.Label>From</Form.Label>
              <Form.Control type="date" value={from} max={to || undefined} onChange={(e) => update({ from: e.target.value })} />
            </Form.Group>
          </Col>
          <Col xs={6} md={3} lg={2}>
            <Form.Group controlId="order-filter-to">
              <Form.Label>To</Form.Label>
              <Form.Control
                type="date"
                value={toInstant ? '' : to}
                min={from || undefined}
                onChange={(e) => update({ to: e.target.value })}
              />
            </Form.Group>
          </Col>
        </Row>
        <div className="d-flex flex-wrap align-items-center gap-2 mt-2">
          <Button
            variant={toDeliver ? 'dark' : 'outline-dark'}
            className="tap-target"
            aria-pressed={toDeliver}
            onClick={() => update(toDeliver ? { isPaid: null, isDelivered: null } : { isPaid: 'true', isDelivered: 'false' })}
          >
            To deliver
          </Button>
          <a
            className="btn btn-outline-dark tap-target d-inline-flex align-items-center"
            href={exportAddress({ isPaid: paid, isDelivered: delivered, from, to, keyword })}
            download
          >
            Export CSV
          </a>
          {filtering && (
            <Button variant="link" className="tap-target" onClick={list.clear}>
              Clear filters
            </Button>
          )}
          {isFetching && !isLoading && (
            <Spinner animation="border" size="sm" role="status">
              <span className="visually-hidden">Updating the list…</span>
            </Spinner>
          )}
        </div>
        {toInstant && <p className="small text-body-secondary mt-2 mb-0">Placed up to {nairobiMinute(to)}</p>}
      </Form>

      {isLoading ? (
        <Loader label="Loading orders…" />
      ) : error ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !data || data.orders.length === 0 ? (
        <Message>
          {filtering ? 'No orders match these filters' : page > 1 ? 'There are no orders on this page.' : 'No orders yet'}
        </Message>
      ) : (
        <div className={isFetching ? 'opacity-75' : undefined} aria-busy={isFetching}>
          <ResponsiveList
            label="Orders"
            items={data.orders}
            rowKey={(order) => order._id}
            columns={columns}
            actions={(order, layout) => (
              <RowActions
                layout={layout}
                to={paths.order(order._id)}
                linkLabel={`Details of order ${order.orderNumber}`}
                link="Details"
                deleteLabel={`Delete order ${order.orderNumber}`}
                deleting={deletion.pending?._id === order._id}
                onDelete={() => deletion.ask(order)}
              >
                <Button
                  variant="outline-dark"
                  size={buttonSize(layout)}
                  className={layout === 'card' ? 'tap-target' : 'me-2'}
                  aria-label={`Mark As Paid: order ${order.orderNumber}`}
                  title={order.isPaid ? 'Already paid' : undefined}
                  disabled={order.isPaid || (marking && markingId === order._id)}
                  onClick={() => markAsPaid(order)}
                >
                  Mark As Paid
                </Button>
              </RowActions>
            )}
          />
          <Paginate pages={data.pages} page={data.page} linkTo={list.pageLink} />
        </div>
      )}

      <ConfirmDialog
        {...deletion.dialog}
        title="Confirm Deletion"
        body="Are you sure you want to delete this order?"
        confirmLabel="Delete"
      />
    </>
  );
}
