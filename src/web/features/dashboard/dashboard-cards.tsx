import type { ReactNode } from 'react';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { Link } from 'react-router';
import { formatKsh } from '../../../shared/money';
import type { Dashboard, SalesFigure } from '../../../shared/schemas/dashboard';
import { paths } from '../../config/paths';

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-KE')} ${n === 1 ? one : many}`;

function SalesCard({ title, figure }: { title: string; figure: SalesFigure }) {
  return (
    <Card className="h-100">
      {/* On a phone one line each (the label, then the amount), so the three fit the first screen. */}
      <Card.Body className="d-flex d-sm-block flex-wrap justify-content-between align-items-baseline column-gap-2 py-2 py-sm-3">
        <h2 className="h6 text-body-secondary mb-sm-1">{title}</h2>
        <p className="h4 mb-0 mb-sm-1 text-nowrap">{formatKsh(figure.total)}</p>
        <p className="w-100 mb-0 small text-body-secondary">{plural(figure.orders, 'paid order', 'paid orders')}</p>
      </Card.Body>
    </Card>
  );
}

/** A count that needs the merchant, the whole card a link to the list that shows those records. */
function AttentionCard(props: { title: string; count: number; to: string; linkLabel: string; children: ReactNode }) {
  const urgent = props.count > 0;
  return (
    <Card className={`h-100 ${urgent ? 'border-warning' : ''}`}>
      <Card.Body className="d-flex flex-column py-2 py-sm-3">
        <div className="d-flex d-sm-block justify-content-between align-items-baseline gap-2">
          <h2 className="h6 text-body-secondary mb-sm-1">{props.title}</h2>
          <p className={`h3 mb-0 mb-sm-1 ${urgent ? '' : 'text-body-secondary'}`}>{props.count.toLocaleString('en-KE')}</p>
        </div>
        <p className="small text-body-secondary mb-1 mb-sm-2">{props.children}</p>
        <Link to={props.to} className="mt-auto stretched-link tap-target d-inline-flex align-items-center">
          {props.linkLabel}
        </Link>
      </Card.Body>
    </Card>
  );
}

/** What the shop sold today, this week and this month. */
export function SalesFigures({ sales }: { sales: Dashboard['sales'] }) {
  return (
    <section aria-labelledby="dashboard-sales">
      <h2 id="dashboard-sales" className="visually-hidden">
        Sales
      </h2>
      <Row xs={1} sm={3} className="g-3 mb-3">
        <Col>
          <SalesCard title="Today" figure={sales.today} />
        </Col>
        <Col>
          <SalesCard title="This week" figure={sales.week} />
        </Col>
        <Col>
          <SalesCard title="This month" figure={sales.month} />
        </Col>
      </Row>
    </section>
  );
}

/** What waits for the merchant, each card a link to the list that shows those records. */
export function NeedsAttention({ dashboard }: { dashboard: Dashboard }) {
  return (
    <section aria-labelledby="dashboard-attention">
      <h2 id="dashboard-attention" className="visually-hidden">
        Needs attention
      </h2>
      <Row xs={1} sm={3} className="g-3 mb-3">
        <Col>
          <AttentionCard
            title="To deliver"
            count={dashboard.toDeliver}
            to={paths.admin.ordersWhere({ isPaid: true, isDelivered: false })}
            linkLabel="Orders to deliver"
          >
            Paid, not yet delivered
          </AttentionCard>
        </Col>
        <Col>
          <AttentionCard
            title="Unpaid after a day"
            count={dashboard.unpaidOverdue.count}
            to={paths.admin.ordersWhere({ isPaid: false, to: dashboard.unpaidOverdue.placedBefore })}
            linkLabel="Unpaid orders"
          >
            Placed more than 24 hours ago
          </AttentionCard>
        </Col>
        <Col>
          <AttentionCard
            title="Payment exceptions"
            count={dashboard.openExceptions}
            to={paths.admin.payments('exception')}
            linkLabel="Open exceptions"
          >
            M-Pesa payments to look at
          </AttentionCard>
        </Col>
      </Row>
    </section>
  );
}

/** The products that run out: how many, and the first of them, each a link to its edit screen. */
export function LowStockCard({ lowStock }: { lowStock: Dashboard['lowStock'] }) {
  return (
    <Card className="h-100" as="section" aria-labelledby="dashboard-low-stock">
      <Card.Body>
        <h2 id="dashboard-low-stock" className="h5">
          Low stock
        </h2>
        <p className="small text-body-secondary">
          {plural(lowStock.count, 'product', 'products')} with {lowStock.threshold} or fewer in stock
        </p>
        {lowStock.products.length > 0 && (
          <ul className="list-unstyled mb-0" aria-label="Low-stock products">
            {lowStock.products.map((product) => (
              <li key={product._id} className="d-flex justify-content-between align-items-center gap-2 border-top">
                <Link to={paths.admin.productEdit(product._id)} className="tap-target d-flex align-items-center text-break">
                  {product.name}
                </Link>
                <span className={`badge ${product.countInStock === 0 ? 'text-bg-danger' : 'text-bg-warning'}`}>
                  {product.countInStock === 0 ? 'Out of stock' : `${product.countInStock} left`}
                </span>
              </li>
            ))}
          </ul>
        )}
        {lowStock.count > lowStock.products.length && (
          <p className="small mt-2 mb-0">and {lowStock.count - lowStock.products.length} more</p>
        )}
      </Card.Body>
    </Card>
  );
}
