import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { nairobiMinute } from '../../../shared/dates';
import { ListSearchField } from '../../components/list/list-controls';
import type { ListSearch } from '../../hooks/use-list-search';
import type { OrderListParams } from './api';

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

/** The order list's filters as the address gives them, each '' when not set. */
export interface OrderFilters {
  paid: FlagChoice;
  delivered: FlagChoice;
  from: string;
  to: string;
  keyword: string;
}

export function orderFiltersFrom(list: ListSearch): OrderFilters {
  return {
    paid: flagChoice(list.params.get('isPaid')),
    delivered: flagChoice(list.params.get('isDelivered')),
    from: dayChoice(list.params.get('from')),
    to: toChoice(list.params.get('to')),
    keyword: list.keyword,
  };
}

export function isFiltering({ paid, delivered, from, to, keyword }: OrderFilters): boolean {
  return paid !== '' || delivered !== '' || from !== '' || to !== '' || keyword !== '';
}

/** The page of orders to ask the server for: the filters set, and no others. */
export function orderListParams({ paid, delivered, from, to, keyword }: OrderFilters, page: number): OrderListParams {
  return {
    pageNumber: page,
    ...(paid !== '' && { isPaid: paid === 'true' }),
    ...(delivered !== '' && { isDelivered: delivered === 'true' }),
    ...(from && { from }),
    ...(to && { to }),
    ...(keyword && { keyword }),
  };
}

/** The CSV export of what the list shows: the same filters, every page. */
function exportAddress({ paid, delivered, from, to, keyword }: OrderFilters): string {
  const filters = { isPaid: paid, isDelivered: delivered, from, to, keyword };
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));
  const text = query.toString();
  return text ? `/api/admin/exports/orders.csv?${text}` : '/api/admin/exports/orders.csv';
}

/** A filter of yes, no or either, as a select. */
function FlagSelect(props: {
  id: string;
  label: string;
  value: FlagChoice;
  yes: string;
  no: string;
  onChange: (value: string) => void;
}) {
  return (
    <Form.Group controlId={props.id}>
      <Form.Label>{props.label}</Form.Label>
      <Form.Select value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">All</option>
        <option value="true">{props.yes}</option>
        <option value="false">{props.no}</option>
      </Form.Select>
    </Form.Group>
  );
}

/** The search and the payment, delivery and date filters, in one row from lg up. */
function FilterFields({ list, filters }: { list: ListSearch; filters: OrderFilters }) {
  const { paid, delivered, from, to } = filters;
  const toInstant = to !== '' && !DAY.test(to);
  return (
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
        <FlagSelect
          id="order-filter-paid"
          label="Payment"
          value={paid}
          yes="Paid"
          no="Unpaid"
          onChange={(value) => list.update({ isPaid: value })}
        />
      </Col>
      <Col xs={6} md={3} lg={2}>
        <FlagSelect
          id="order-filter-delivered"
          label="Delivery"
          value={delivered}
          yes="Delivered"
          no="Not delivered"
          onChange={(value) => list.update({ isDelivered: value })}
        />
      </Col>
      <Col xs={6} md={3} lg={2}>
        <Form.Group controlId="order-filter-from">
          <Form.Label>From</Form.Label>
          <Form.Control type="date" value={from} max={to || undefined} onChange={(e) => list.update({ from: e.target.value })} />
        </Form.Group>
      </Col>
      <Col xs={6} md={3} lg={2}>
        <Form.Group controlId="order-filter-to">
          <Form.Label>To</Form.Label>
          <Form.Control
            type="date"
            value={toInstant ? '' : to}
            min={from || undefined}
            onChange={(e) => list.update({ to: e.target.value })}
          />
        </Form.Group>
      </Col>
    </Row>
  );
}

/**
 * The order list's filter form: the search, payment, delivery and dates, "To deliver" (paid and
 * not delivered: what the merchant has to send out next), the CSV export of the same orders and
 * Clear filters. `updating` shows while a new page of orders loads.
 */
export default function OrderListFilters({
  list,
  filters,
  updating,
}: {
  list: ListSearch;
  filters: OrderFilters;
  updating: boolean;
}) {
  const { paid, delivered, to } = filters;
  const toDeliver = paid === 'true' && delivered === 'false';
  const toInstant = to !== '' && !DAY.test(to);
  return (
    <Form className="mb-3" onSubmit={list.submitSearch} aria-label="Filter orders">
      <FilterFields list={list} filters={filters} />
      <div className="d-flex flex-wrap align-items-center gap-2 mt-2">
        <Button
          variant={toDeliver ? 'dark' : 'outline-dark'}
          className="tap-target"
          aria-pressed={toDeliver}
          onClick={() => list.update(toDeliver ? { isPaid: null, isDelivered: null } : { isPaid: 'true', isDelivered: 'false' })}
        >
          To deliver
        </Button>
        <a className="btn btn-outline-dark tap-target d-inline-flex align-items-center" href={exportAddress(filters)} download>
          Export CSV
        </a>
        {isFiltering(filters) && (
          <Button variant="link" className="tap-target" onClick={list.clear}>
            Clear filters
          </Button>
        )}
        {updating && (
          <Spinner animation="border" size="sm" role="status">
            <span className="visually-hidden">Updating the list…</span>
          </Spinner>
        )}
      </div>
      {toInstant && <p className="small text-body-secondary mt-2 mb-0">Placed up to {nairobiMinute(to)}</p>}
    </Form>
  );
}
