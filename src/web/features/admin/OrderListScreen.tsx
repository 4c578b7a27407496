import { useState } from 'react';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { useSearchParams } from 'react-router';
import type { Order } from '../../../shared/schemas/orders';
import { paths } from '../../app/paths';
import ConfirmDialog from '../../components/ConfirmDialog';
import { CrossIcon } from '../../components/icons';
import Loader from '../../components/Loader';
import Message from '../../components/Message';
import PageTitle from '../../components/PageTitle';
import Price from '../../components/Price';
import { errorMessage } from '../../lib/errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { useDeleteOrderMutation, useGetOrdersQuery } from '../orders/api';
import { ActionsHeader, IdCell, RowActions } from './TableParts';
import '../../styles/tables.scss';
import { nairobiDay } from '../../../shared/dates';

/** A filter choice as kept in the address: '' for all, else 'true' or 'false'. */
type FlagChoice = '' | 'true' | 'false';

function flagChoice(value: string | null): FlagChoice {
  return value === 'true' || value === 'false' ? value : '';
}

/** Only the chosen filters, so "All" leaves the parameter out of the request and the cache key. */
function orderFilters(paid: FlagChoice, delivered: FlagChoice): { isPaid?: boolean; isDelivered?: boolean } {
  return {
    ...(paid === '' ? {} : { isPaid: paid === 'true' }),
    ...(delivered === '' ? {} : { isDelivered: delivered === 'true' }),
  };
}

/** Every order, newest first, with payment and delivery filters kept in the address (docs/product-rules.md, Screens: Admin order list). */
export default function OrderListScreen() {
  const [searchParams, setSearchParams] = useSearchParams();
  const paid = flagChoice(searchParams.get('isPaid'));
  const delivered = flagChoice(searchParams.get('isDelivered'));
  const filtering = paid !== '' || delivered !== '';

  const { data: orders, isLoading, isFetching, error } = useGetOrdersQuery(filtering ? orderFilters(paid, delivered) : undefined);
  const [deleteOrder, { isLoading: deleting, originalArgs: deletingId }] = useDeleteOrderMutation();
  const [orderToDelete, setOrderToDelete] = useState<Order | null>(null);

  function setFilter(name: 'isPaid' | 'isDelivered', choice: string) {
    const next = new URLSearchParams(searchParams);
    if (choice === '') next.delete(name);
    else next.set(name, choice);
    setSearchParams(next, { replace: true });
  }

  async function confirmDelete() {
    const order = orderToDelete;
    setOrderToDelete(null);
    if (!order) return;
    try {
      const result = await deleteOrder(order._id).unwrap();
      toastSuccess(result.msg);
    } catch (err) {
      toastErrors(err);
    }
  }

  return (
    <>
      <PageTitle title="Orders" />
      <h1 className="h2 mb-3">Orders</h1>

      <Form className="mb-3" onSubmit={(e) => e.preventDefault()} aria-label="Filter orders">
        <Row className="g-2">
          <Col xs={6} md={4} lg={3}>
            <Form.Group controlId="order-filter-paid">
              <Form.Label>Payment</Form.Label>
              <Form.Select value={paid} onChange={(e) => setFilter('isPaid', e.target.value)}>
                <option value="">All</option>
                <option value="true">Paid</option>
                <option value="false">Unpaid</option>
              </Form.Select>
            </Form.Group>
          </Col>
          <Col xs={6} md={4} lg={3}>
            <Form.Group controlId="order-filter-delivered">
              <Form.Label>Delivery</Form.Label>
              <Form.Select value={delivered} onChange={(e) => setFilter('isDelivered', e.target.value)}>
                <option value="">All</option>
                <option value="true">Delivered</option>
                <option value="false">Not delivered</option>
              </Form.Select>
            </Form.Group>
          </Col>
          {isFetching && !isLoading && (
            <Col xs="auto" className="d-flex align-items-end pb-2">
              <Spinner animation="border" size="sm" role="status">
                <span className="visually-hidden">Updating the list…</span>
              </Spinner>
            </Col>
          )}
        </Row>
      </Form>

      {isLoading ? (
        <Loader label="Loading orders…" />
      ) : error ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !orders || orders.length === 0 ? (
        <Message>{filtering ? 'No orders match these filters' : 'No orders yet'}</Message>
      ) : (
        <Table striped bordered hover responsive size="sm" className="align-middle">
          <thead>
            <tr>
              <th scope="col">ID</th>
              <th scope="col">USER</th>
              <th scope="col">DATE</th>
              <th scope="col">TOTAL</th>
              <th scope="col">PAID</th>
              <th scope="col">DELIVERED</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {orders.map((order) => {
              const thisDeleting = deleting && deletingId === order._id;
              return (
                <tr key={order._id}>
                  <IdCell id={order._id} />
                  <td className="text-nowrap">
                    {order.user ? order.user.name : <em className="text-body-secondary">Deleted user</em>}
                  </td>
                  <td className="text-nowrap">{nairobiDay(order.createdAt)}</td>
                  <td className="text-nowrap">
                    <Price value={order.totalPrice} />
                  </td>
                  <td className="text-nowrap">
                    {order.paidAt ? nairobiDay(order.paidAt) : <CrossIcon className="text-danger" title="Not paid" />}
                  </td>
                  <td className="text-nowrap">
                    {order.deliveredAt ? (
                      nairobiDay(order.deliveredAt)
                    ) : (
                      <CrossIcon className="text-danger" title="Not delivered" />
                    )}
                  </td>
                  <RowActions
                    to={paths.order(order._id)}
                    linkLabel={`Details of order ${order._id}`}
                    link="Details"
                    deleteLabel={`Delete order ${order._id}`}
                    deleting={thisDeleting}
                    onDelete={() => setOrderToDelete(order)}
                  />
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}

      <ConfirmDialog
        show={orderToDelete !== null}
        title="Confirm Deletion"
        body="Are you sure you want to delete this order?"
        confirmLabel="Delete"
        onConfirm={confirmDelete}
        onCancel={() => setOrderToDelete(null)}
      />
    </>
  );
}
