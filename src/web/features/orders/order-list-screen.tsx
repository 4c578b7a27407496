import Button from 'react-bootstrap/Button';
import { nairobiDay } from '../../../shared/dates';
import type { Order } from '../../../shared/schemas/orders';
import ConfirmDialog from '../../components/confirm-dialog';
import { CrossIcon } from '../../components/icons';
import { buttonSize, type ListColumn, type ListLayout, ResponsiveList, RowActions } from '../../components/list/table-parts';
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
import { useDeleteOrderMutation, useGetOrdersPageQuery, useMarkPaidMutation } from './api';
import OrderListFilters, { isFiltering, orderFiltersFrom, orderListParams } from './order-list-filters';

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

/** A row's buttons: Details, Mark As Paid (disabled once paid) and Delete. */
function OrderRowActions(props: {
  order: Order;
  layout: ListLayout;
  deleting: boolean;
  onDelete: () => void;
  marking: boolean;
  onMarkPaid: () => void;
}) {
  const { order, layout } = props;
  return (
    <RowActions
      layout={layout}
      to={paths.order(order._id)}
      linkLabel={`Details of order ${order.orderNumber}`}
      link="Details"
      deleteLabel={`Delete order ${order.orderNumber}`}
      deleting={props.deleting}
      onDelete={props.onDelete}
    >
      <Button
        variant="outline-dark"
        size={buttonSize(layout)}
        className={layout === 'card' ? 'tap-target' : 'me-2'}
        aria-label={`Mark As Paid: order ${order.orderNumber}`}
        title={order.isPaid ? 'Already paid' : undefined}
        disabled={order.isPaid || props.marking}
        onClick={props.onMarkPaid}
      >
        Mark As Paid
      </Button>
    </RowActions>
  );
}

/**
 * The orders, newest first, a page at a time (docs/product-rules.md, Screens: Admin order list), with payment, delivery
 * and date filters and a search, all kept in the address. "To deliver" is paid and not delivered:
 * what the merchant has to send out next.
 */
export default function OrderListScreen() {
  const list = useListSearch({ path: paths.admin.orders });
  const filters = orderFiltersFrom(list);
  const { data, isLoading, isFetching, error } = useGetOrdersPageQuery(orderListParams(filters, list.page));
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
      <OrderListFilters list={list} filters={filters} updating={isFetching && !isLoading} />

      {isLoading ? (
        <Loader label="Loading orders…" />
      ) : error ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !data || data.orders.length === 0 ? (
        <Message>
          {isFiltering(filters)
            ? 'No orders match these filters'
            : list.page > 1
              ? 'There are no orders on this page.'
              : 'No orders yet'}
        </Message>
      ) : (
        <div className={isFetching ? 'opacity-75' : undefined} aria-busy={isFetching}>
          <ResponsiveList
            label="Orders"
            items={data.orders}
            rowKey={(order) => order._id}
            columns={columns}
            actions={(order, layout) => (
              <OrderRowActions
                order={order}
                layout={layout}
                deleting={deletion.pending?._id === order._id}
                onDelete={() => deletion.ask(order)}
                marking={marking && markingId === order._id}
                onMarkPaid={() => markAsPaid(order)}
              />
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
