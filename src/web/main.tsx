import './styles/bootstrap.scss';
import './styles.css';
import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App, initialDataOf, looksLikeServerRender, seedFirstScreen } from './app/first-screen';
import { PaymentBanner } from './app/layout/layout';
import { preloadScreen } from './app/router';
import { makeStore } from './stores/store';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

const store = makeStore();

const app = <App store={store} router={(routes) => <BrowserRouter>{routes}</BrowserRouter>} />;

/**
 * The home page and product pages come drawn by the server (entry-server.tsx), as a new visitor
 * sees them. For such a visitor the app takes that HTML over as it is (hydration). A visitor the
 * page looks different for (signed in, a cart, a payment followed) gets it drawn afresh, which
 * replaces the server's HTML in one step. Either way the first screen's code (named in the page's
 * head, so usually downloaded already), and the payment banner's when a payment is followed, is
 * loaded first: the page appears whole, with no spinner that then gives way to it. A drawn page
 * loads this script only once its photo is on screen (after-photo.ts).
 */
function render() {
  if (!root) return;
  // As a transition, React renders (or takes over) the first screen in slices of a few
  // milliseconds, so a slow phone's main thread stays free for taps instead of blocking for the
  // whole first render. That matters most over a drawn page, which the visitor already sees.
  if (root.hasChildNodes() && looksLikeServerRender(store.getState())) {
    startTransition(() => {
      hydrateRoot(root, app);
    });
    return;
  }
  const reactRoot = createRoot(root);
  startTransition(() => reactRoot.render(app));
}
/** A task boundary: the phone may paint and answer a tap between two steps of the start. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

// The modules' evaluation, putting the page's data into the store, and the first render are each
// a task of their own rather than one long one.
nextTask()
  .then(() =>
    Promise.all([
      seedFirstScreen(store, initialDataOf(document), window.location.pathname),
      preloadScreen(window.location.pathname),
      store.getState().followedPayment.payment ? PaymentBanner.preload() : undefined,
    ]),
  )
  .then(nextTask, nextTask)
  .then(render);
