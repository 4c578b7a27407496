import { lazy, Suspense } from 'react';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { DASHBOARD_CHART_DAYS } from '../../../shared/constants';
import type { Dashboard } from '../../../shared/schemas/dashboard';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { errorMessage } from '../../lib/errors';
import { useGetDashboardQuery } from './api';
import { LowStockCard, NeedsAttention, SalesFigures } from './dashboard-cards';

// The chart library comes with this screen only: the storefront never downloads it.
const SalesChart = lazy(() => import('./sales-chart'));
/** The chart's height in px; its placeholder takes the same, so nothing moves when uPlot arrives. */
const CHART_HEIGHT = 220;

/** The last days' sales as a chart, drawn once the chart library has loaded. */
function SalesChartCard({ days }: { days: Dashboard['dailySales'] }) {
  return (
    <Card>
      <Card.Body>
        <h2 className="h5">Sales, last {DASHBOARD_CHART_DAYS} days</h2>
        <Suspense
          fallback={
            <div className="d-flex justify-content-center align-items-center" style={{ height: CHART_HEIGHT }}>
              <Spinner animation="border" role="status">
                <span className="visually-hidden">Loading the chart…</span>
              </Spinner>
            </div>
          }
        >
          <SalesChart days={days} height={CHART_HEIGHT} />
        </Suspense>
      </Card.Body>
    </Card>
  );
}

/**
 * The admin's first screen: what the shop sold (paid orders by the Nairobi day they were paid),
 * what waits to be done, each linking to the list that shows it, what runs out, and the last 30
 * days as a chart. Every figure comes from one call.
 */
export default function DashboardScreen() {
  const { data, isLoading, error } = useGetDashboardQuery(undefined, { refetchOnMountOrArgChange: true });

  return (
    <>
      <PageTitle title="Dashboard" />
      <h1 className="h2 mb-3">Dashboard</h1>
      {isLoading ? (
        <Loader label="Loading the dashboard…" />
      ) : error || !data ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : (
        <>
          <SalesFigures sales={data.sales} />
          <NeedsAttention dashboard={data} />
          <Row className="g-3">
            <Col lg={8}>
              <SalesChartCard days={data.dailySales} />
            </Col>
            <Col lg={4}>
              <LowStockCard lowStock={data.lowStock} />
            </Col>
          </Row>
        </>
      )}
    </>
  );
}
