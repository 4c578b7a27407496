/**
 * The script of a page the server drew (the home page, a product page), in place of the app's
 * (src/server/plugins/shop/web.ts): it loads the app once the page's photo is on screen.
 *
 * Such a page is whole before any script runs, and what a visitor on mobile data waits for is its
 * largest photo. The app's code is several times that photo's size and would share the connection
 * with it, so it is asked for only once the photo has been painted, or at the visitor's first touch
 * or key if that comes sooner. The server lists the app's modules in `data-modules`, the app's
 * entry first; all of them are asked for at once, as the page's head would have done.
 */
const script = document.querySelector<HTMLScriptElement>('script[data-modules]');
const modules = script?.dataset.modules?.split(' ').filter(Boolean) ?? [];
/** How many of the modules after the entry are the entry's own imports (the rest are its screen's). */
const entryImports = Number(script?.dataset.entryImports ?? 0);

/**
 * Asks for every module at once, the entry too, then runs the entry's own imports one task each
 * before the entry: run as one graph they block a phone's main thread for a few hundred
 * milliseconds in one piece, while the visitor may already be scrolling the drawn page.
 */
async function startApp() {
  const [entry, ...others] = modules;
  if (!entry) return;
  for (const href of modules) {
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = href;
    document.head.append(link);
  }
  for (const href of others.slice(0, entryImports)) {
    await import(/* @vite-ignore */ href);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  await import(/* @vite-ignore */ entry);
}

/** The photo the first screen shows largest: the one the server asked to load first. */
const photo = document.querySelector<HTMLImageElement>('#root img[fetchpriority="high"]');

if (!photo || document.visibilityState === 'hidden') void startApp();
else void shown(photo).then(startApp);

/**
 * Resolves once the browser has painted the photo: it reports that as the page's largest
 * contentful paint. A browser that does not report it waits for the photo to load and two frames
 * more. A photo that fails, or a visitor who acts first, does not wait at all.
 */
function shown(photo: HTMLImageElement): Promise<void> {
  return new Promise((resolve) => {
    const interactions = ['pointerdown', 'keydown', 'touchstart'] as const;
    let observer: PerformanceObserver | undefined;
    const done = () => {
      observer?.disconnect();
      for (const type of interactions) removeEventListener(type, done, true);
      resolve();
    };
    for (const type of interactions) addEventListener(type, done, { capture: true, passive: true });
    photo.addEventListener('error', done, { once: true });
    if (PerformanceObserver.supportedEntryTypes.includes('largest-contentful-paint')) {
      observer = new PerformanceObserver((list) => {
        if (list.getEntries().some((entry) => (entry as LargestContentfulPaint).element === photo)) done();
      });
      observer.observe({ type: 'largest-contentful-paint', buffered: true });
      // On a screen where something else is larger than the photo no entry names it: then the
      // photo's load, and time for its paint, is the signal.
      whenLoaded(photo, () => setTimeout(done, 500));
    } else {
      whenLoaded(photo, () => requestAnimationFrame(() => requestAnimationFrame(done)));
    }
  });
}

function whenLoaded(photo: HTMLImageElement, then: () => void) {
  if (photo.complete) then();
  else photo.addEventListener('load', then, { once: true });
}
