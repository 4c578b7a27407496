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
