import type { ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { Link } from 'react-router';
import { TrashIcon } from '../../components/icons';

/** The header of a table's last column, which holds buttons: named for screen readers only. */
export function ActionsHeader() {
  return (
    // position-relative keeps the hidden text inside the scrolling table, so a phone page does not widen.
    <th scope="col" className="position-relative">
      <span className="visually-hidden">Actions</span>
    </th>
  );
}

/** An id in full on wider screens; on a phone its first 8 characters, so the row stays one line. */
export function IdCell({ id }: { id: string }) {
  return (
    <td className="font-monospace small text-nowrap">
      <span className="d-none d-md-inline">{id}</span>
      <span className="d-md-none" title={id}>
        {id.slice(0, 8)}…
      </span>
    </td>
  );
}

/** A row's last cell: a link (edit or details) and a delete button that spins while it works. */
export function RowActions(props: {
  to: string;
  linkLabel: string;
  link: ReactNode;
  deleteLabel: string;
  deleting: boolean;
  onDelete: () => void;
}) {
  return (
    <td className="text-nowrap">
      <Link to={props.to} className="btn btn-light btn-sm me-2" aria-label={props.linkLabel}>
        {props.link}
      </Link>
      <Button variant="danger" size="sm" aria-label={props.deleteLabel} disabled={props.deleting} onClick={props.onDelete}>
        {props.deleting ? <Spinner animation="border" size="sm" aria-hidden="true" /> : <TrashIcon />}
      </Button>
    </td>
  );
}
