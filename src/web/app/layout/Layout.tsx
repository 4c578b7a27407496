import { Suspense } from 'react';
import Container from 'react-bootstrap/Container';
import { Outlet, ScrollRestoration } from 'react-router';
import { ToastContainer } from 'react-toastify';
import Loader from '../../components/Loader';
import Footer from './Footer';
import Header from './Header';

/** Navigation bar, the current screen, footer; toasts top-right for 5 s (spec §9). */
export default function Layout() {
  return (
    <div className="d-flex flex-column min-vh-100">
      <a href="#main" className="visually-hidden-focusable skip-link">
        Skip to content
      </a>
      <Header />
      <main id="main" className="flex-grow-1 py-3">
        <Container>
          <Suspense fallback={<Loader />}>
            <Outlet />
          </Suspense>
        </Container>
      </main>
      <Footer />
      <ToastContainer position="top-right" autoClose={5000} newestOnTop />
      <ScrollRestoration />
    </div>
  );
}
