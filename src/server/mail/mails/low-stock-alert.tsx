import type { Order } from '../../../shared/schemas/orders.js';
import { Heading, Link, Muted, Para, ROW_CELL, RowsTable } from '../components/blocks.js';
import { Layout, renderMail } from '../components/layout.js';
import { DANGER, TEXT } from '../components/theme.js';
import type { MailMessage } from '../mailer.js';
import { baseUrl, merchantAlertReason, textFooter } from './facts.js';

export interface LowStockLine {
  productId: string;
  name: string;
  countInStock: number;
}

function stockText(count: number): string {
  return count === 0 ? 'Out of stock' : `${count} left`;
}

/** An order left products at or below the low-stock threshold: which, how many are left, where to restock. */
export function lowStockAlertMail(
  to: string,
  order: Order,
  lines: readonly LowStockLine[],
  threshold: number,
  shopUrl: string,
  shopName: string,
): MailMessage {
  const base = baseUrl(shopUrl);
  const editUrl = (line: LowStockLine) => `${base}/admin/product/${encodeURIComponent(line.productId)}/edit`;
  const first = lines[0];
  const subject =
    lines.length === 1 && first
      ? `Low stock: ${first.name} (${stockText(first.countInStock).toLowerCase()})`
      : `Low stock: ${lines.length} products after order ${order.orderNumber}`;
  const intro = `Order ${order.orderNumber} left ${lines.length === 1 ? 'this product' : 'these products'} at or below your low-stock threshold of ${threshold}.`;
  const text = [
    intro,
    '',
    ...lines.map((line) => `- ${line.name}: ${stockText(line.countInStock)}\n  Restock: ${editUrl(line)}`),
    '',
    textFooter(base, shopName),
  ].join('\n');
  const html = renderMail(
    <Layout shopName={shopName} title={subject} preheader={intro} shopUrl={base} reason={merchantAlertReason(shopName)}>
      <Heading>Low stock</Heading>
      <Para style={{ marginTop: '14px' }}>{intro}</Para>
      <RowsTable>
        {lines.map((line) => (
          <tr key={line.productId}>
            <td style={{ padding: '12px 12px 12px 0', ...ROW_CELL }}>
              <Link href={editUrl(line)}>{line.name}</Link>
            </td>
            <td
              align="right"
              style={{
                padding: '12px 0',
                ...ROW_CELL,
                whiteSpace: 'nowrap',
                fontWeight: '700',
                color: line.countInStock === 0 ? DANGER : TEXT,
              }}
            >
              {stockText(line.countInStock)}
            </td>
          </tr>
        ))}
      </RowsTable>
      <Para style={{ marginTop: '14px' }}>
        <Muted>Open a product to change its stock.</Muted>
      </Para>
    </Layout>,
  );
  return { to, subject, text, html };
}
