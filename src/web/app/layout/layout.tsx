import { lazy, Suspense, useRef, useSyncExternalStore } from 'react';
import Container from 'react-bootstrap/Container';
import { Outlet } from 'react-router';
import Loader from '../../components/loader';
import { preloadable } from '../../lib/preloadable';
import { toastsWanted } from '../../lib/toast';
import { useAppSelector } from '../../stores/store';
import Footer from './footer';
import Header from './header';
import ScrollRestoration from './scroll-restoration';

const Toasts = lazy(() => import('./toasts'));

/**
 * Only a shopper who has just paid follows a payment, so the banner's code is not part of every
 * first page; main.tsx loads it before the first render when a payment is followed.
 */
export const PaymentBanner = preloadable(() => import('../../features/payments/payment-banner'));

/** The server's render, and the browser's that takes it over, show no toasts. */
const noToastsYet = () => false;

/** Navigation bar, the current screen, footer; toasts top-right for 5 s (docs/product-rules.md, Constants). */
export default function Layout() {
  const showToasts = useSyncExternalStore(toastsWanted.subscribe, toastsWanted.get, noToastsYet);
  const followingPayment = useAppSelector((s) => s.followedPayment.payment !== null);
  // The header and the payment banner: toasts start below them, never over their links.
  const pageTop = useRef<HTMLDivElement>(null);
  return (
    <div className="d-flex flex-column min-vh-100">
      <a href="#main" className="visually-hidden-focusable skip-link">
        Skip to content
      </a>
      <div ref={pageTop}>
        <Header />
        {followingPayment && (
          <Suspense fallback={null}>
            <PaymentBanner />
          </Suspense>
        )}
      </div>
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
          <Toasts below={pageTop} />
        </Suspense>
      )}
      <ScrollRestoration />
    </div>
  );
}
