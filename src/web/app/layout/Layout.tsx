import { lazy, Suspense, useSyncExternalStore } from 'react';
import Container from 'react-bootstrap/Container';
import { Outlet } from 'react-router';
import Loader from '../../components/Loader';
import PaymentBanner from '../../features/orders/PaymentBanner';
import { toastsWanted } from '../../lib/toast';
import Footer from './Footer';
import Header from './Header';
import ScrollRestoration from './ScrollRestoration';

const Toasts = lazy(() => import('./Toasts'));

/** Navigation bar, the current screen, footer; toasts top-right for 5 s (docs/product-rules.md, Constants). */
export default function Layout() {
  const showToasts = useSyncExternalStore(toastsWanted.subscribe, toastsWanted.get);
  return (
    <div className="d-flex flex-column min-vh-100">
      <a href="#main" className="visually-hidden-focusable skip-link">
        Skip to content
      </a>
      <Header />
      <PaymentBanner />
      <main id="main" className="flex-grow-1 py-3">
        <Container className="screen">
          <Suspense fallback={<Loader />}>
            <Outlet />
          </Suspense>
        </Container>
      </main>
      <Footer />
      {showToasts && (
        <Suspense fallback={null}>
          <Toasts />
        </Suspense>
      )}
      <ScrollRestoration />
    </div>
  );
}
