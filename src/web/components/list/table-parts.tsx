import { Fragment, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router';
import { MD_AND_UP, useMediaQuery } from '../../hooks/use-media-query';
import { TrashIcon } from '../icons';
import '../../styles/tables.scss';

/** Where a row's actions are drawn: a table cell (compact buttons) or a card (full-size, for thumbs). */
export type ListLayout = 'table' | 'card';

export interface ListColumn<T> {
  /** The column's heading, as the specification words it (ID, USER, …); a card's labels too. */
  header: string;
  cell: (item: T) => ReactNode;
  /** Keeps a short value (a date, an amount) on one line in the table. */
  nowrap?: boolean;
}

/**
 * An admin list: the specification's table from Bootstrap's `md` up; below it a card per row with
 * every column as a labelled line and every action as a full-size button, so nothing sits off
 * screen on a phone and nothing needs sideways scrolling. One component for every admin list.
 */
export function ResponsiveList<T>(props: {
  /** What the list is, for screen readers ("Orders"). */
  label: string;
  items: readonly T[];
  rowKey: (item: T) => string;
  columns: readonly ListColumn<T>[];
  /** A row's buttons; a read-only list has none. */
  actions?: (item: T, layout: ListLayout) => ReactNode;
}) {
  const wide = useMediaQuery(MD_AND_UP);
  const { label, items, rowKey, columns, actions } = props;
  if (wide) {
    return (
      <Table striped bordered hover responsive size="sm" className="align-middle" aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
            {actions && <ActionsHeader />}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={rowKey(item)}>
              {columns.map((column) => (
                <td key={column.header} className={column.nowrap ? 'text-nowrap' : undefined}>
                  {column.cell(item)}
                </td>
              ))}
              {actions && <td className="text-nowrap">{actions(item, 'table')}</td>}
            </tr>
          ))}
        </tbody>
      </Table>
    );
  }
  return (
    <ul className="list-unstyled mb-3" aria-label={label}>
      {items.map((item) => (
        <li key={rowKey(item)} className="card mb-2">
          <div className="card-body p-3">
            <dl className="row g-0 mb-2 small">
              {columns.map((column) => (
                <Fragment key={column.header}>
                  <dt className="col-4 fw-semibold text-body-secondary">{column.header}</dt>
                  <dd className="col-8 mb-1 text-break">{column.cell(item)}</dd>
                </Fragment>
              ))}
            </dl>
            {actions && <div className="d-flex flex-wrap gap-2">{actions(item, 'card')}</div>}
          </div>
        </li>
      ))}
    </ul>
  );
}

/** The header of a table's last column, which holds buttons: named for screen readers only. */
export function ActionsHeader() {
  return (
    // position-relative keeps the hidden text inside the scrolling table, so a phone page does not widen.
    <th scope="col" className="position-relative">
      <span className="visually-hidden">Actions</span>
    </th>
  );
}

/** An id in full, in a typewriter face; it may break anywhere in a narrow card. */
export function IdText({ id }: { id: string }) {
  return <span className="font-monospace small text-break">{id}</span>;
}

/** A button's size for the layout: compact in a table row, a full tap target in a card. */
export function buttonSize(layout: ListLayout): 'sm' | undefined {
  return layout === 'table' ? 'sm' : undefined;
}

/**
 * A row's usual actions: a link (edit or details), any extra buttons, and a delete button that
 * spins while it works. A delete that cannot apply is disabled and says why.
 */
export function RowActions(props: {
  layout: ListLayout;
  to: string;
  linkLabel: string;
  link: ReactNode;
  deleteLabel: string;
  deleting: boolean;
  onDelete: () => void;
  /** Why this row cannot be deleted (your own account); the button is disabled. */
  cannotDelete?: string | undefined;
  children?: ReactNode;
}) {
  const size = buttonSize(props.layout);
  const card = props.layout === 'card';
  return (
    <>
      <Link
        to={props.to}
        className={`btn btn-light${size ? ` btn-${size}` : ''}${card ? ' tap-target' : ' me-2'}`}
        aria-label={props.linkLabel}
      >
        {props.link}
      </Link>
      {props.children}
      <Button
        variant="danger"
        size={size}
        className={card ? 'tap-target' : undefined}
        aria-label={props.deleteLabel}
        title={props.cannotDelete}
        disabled={props.deleting || props.cannotDelete !== undefined}
        onClick={props.onDelete}
      >
        {props.deleting ? <Spinner animation="border" size="sm" aria-hidden="true" /> : <TrashIcon />}
      </Button>
      {props.cannotDelete && card && <span className="small text-body-secondary align-self-center">{props.cannotDelete}</span>}
    </>
  );
}
