import { formatKsh } from '../../../shared/money.js';
import type { Order } from '../../../shared/schemas/orders.js';
import { LayoutTable, Link, Muted, PairsTable, Panel, ROW_CELL, RowsTable } from '../components/blocks.js';
import { BORDER, LABEL, MUTED } from '../components/theme.js';
import { addressRows, itemName, lineTotal, productUrl, summaryRows } from './facts.js';

/** The parts of an order the shopper's mails and the merchant's alert both show. */

/** An item's name (with its variant), linked to its product page while the product exists. */
export function ItemName({ item, shopUrl }: { item: Order['orderItems'][number]; shopUrl: string }) {
  const name = itemName(item);
  return item._id ? <Link href={productUrl(item._id, shopUrl)}>{name}</Link> : name;
}

function HeaderCell({ label, align }: { label: string; align: 'left' | 'center' | 'right' }) {
  return (
    <th
      scope="col"
      align={align}
      style={{
        padding: '0 0 8px',
        borderBottom: `2px solid ${BORDER}`,
        fontSize: '12px',
        ...LABEL,
        color: MUTED,
        textAlign: align,
      }}
    >
      {label}
    </th>
  );
}

/**
 * The items as a real data table (headers announced by screen readers): the name with the unit
 * price under it, the quantity and the line total. Three columns stay readable on a phone.
 */
export function ItemsTable({ order, shopUrl }: { order: Order; shopUrl: string }) {
  return (
    <RowsTable layout={false}>
      <tr>
        <HeaderCell label="Item" align="left" />
        <HeaderCell label="Qty" align="center" />
        <HeaderCell label="Total" align="right" />
      </tr>
      {order.orderItems.map((item, i) => (
        // The lines of a mail never move: their place is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: rendered once, never reordered
        <tr key={i}>
          <td style={{ padding: '12px 12px 12px 0', ...ROW_CELL }}>
            <ItemName item={item} shopUrl={shopUrl} />
            <br />
            <Muted>{formatKsh(item.price)} each</Muted>
          </td>
          <td align="center" style={{ padding: '12px 8px', ...ROW_CELL, whiteSpace: 'nowrap' }}>
            {item.qty}
          </td>
          <td align="right" style={{ padding: '12px 0 12px 8px', ...ROW_CELL, whiteSpace: 'nowrap' }}>
            {formatKsh(lineTotal(item))}
          </td>
        </tr>
      ))}
    </RowsTable>
  );
}

/** The price summary, right under the items. */
export function SummaryTable({ order }: { order: Order }) {
  return (
    <LayoutTable width="100%" style={{ width: '100%', marginTop: '12px' }}>
      <tr>
        <td style={{ width: '35%' }} />
        <td>
          <PairsTable rows={summaryRows(order)} strongLast alignValues="right" />
        </td>
      </tr>
    </LayoutTable>
  );
}

export function AddressPanel({ order }: { order: Order }) {
  return (
    <Panel>
      <PairsTable rows={addressRows(order)} />
    </Panel>
  );
}
