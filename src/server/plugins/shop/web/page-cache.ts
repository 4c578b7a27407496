/**
 * Pages as sent: made once per key however many visitors ask at once, kept in a bounded cache,
 * compressed once per encoding off the event loop, and drawn at most once a second per address.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { PagePlan } from './page-plan.js';

export type PageEncoding = 'br' | 'gzip';

export interface RenderedPage {
  html: string;
  hash: string;
  encoded: Map<PageEncoding, Promise<Buffer>>;
}

/** The shortest time between two drawings of one address's first screen (see render). */
const REDRAW_INTERVAL_MS = 1000;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** Compressed once per page and version, so a slower, smaller setting pays. */
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } };

export const pageOf = (html: string): RenderedPage => ({
  html,
  hash: createHash('sha1').update(html).digest('base64url'),
  encoded: new Map(),
});

export interface PageCache {
  /** Pages as sent, by plan key: made once, and compressed once per encoding, off the event loop. */
  rendered: LRUCache<string, RenderedPage>;
  /** Pages being made, by the same key: one render however many visitors ask at once. */
  making: Map<string, Promise<RenderedPage>>;
  /** When each address's page was last drawn: the bound on drawing while its data keeps changing. */
  lastDrawn: LRUCache<string, number>;
}

export function newPageCache(): PageCache {
  return {
    rendered: new LRUCache<string, RenderedPage>({
      maxSize: 16 * 1024 * 1024,
      sizeCalculation: (p) => p.html.length * 2,
    }),
    making: new Map(),
    lastDrawn: new LRUCache<string, number>({ max: 10_000 }),
  };
}

/** The page under this key, made once however many visitors ask for it at the same time. */
export function madeOnce(cache: PageCache, key: string, make: () => Promise<RenderedPage>): Promise<RenderedPage> {
  const kept = cache.rendered.get(key) ?? cache.making.get(key);
  if (kept) return Promise.resolve(kept);
  const pending = make().finally(() => cache.making.delete(key));
  cache.making.set(key, pending);
  pending.then((page) => cache.rendered.set(key, page)).catch(() => undefined);
  return pending;
}

/**
 * The page of a plan, with its first screen drawn (`make(true)`) when the page can be drawn
 * (`drawable`: there is a renderer, the page has data to draw, and the visitor is new: a
 * signed-in visitor's page differs, and the browser draws it, src/web/main.tsx). Drawing takes a
 * few milliseconds of this thread, so an address is drawn at most once per REDRAW_INTERVAL_MS:
 * during a sale every order changes the stock a page shows, and a page whose data changed
 * sooner than that is sent undrawn, with its new data, for the browser to draw.
 */
export function render(
  cache: PageCache,
  plan: PagePlan,
  drawable: boolean,
  make: (draw: boolean) => Promise<RenderedPage>,
): Promise<RenderedPage> {
  if (drawable) {
    const drawnKey = `${plan.key}|drawn`;
    const now = Date.now();
    const last = cache.lastDrawn.get(plan.pathname);
    const due = last === undefined || now - last >= REDRAW_INTERVAL_MS || now < last;
    const ready = cache.rendered.has(drawnKey) || cache.making.has(drawnKey);
    if (ready || due) {
      if (!ready) cache.lastDrawn.set(plan.pathname, now);
      return madeOnce(cache, drawnKey, () => make(true));
    }
  }
  return madeOnce(cache, `${plan.key}|bare`, () => make(false));
}

/** The page compressed, once per encoding; a failed compression is tried again by the next request. */
export function encodedBody(made: RenderedPage, encoding: PageEncoding): Promise<Buffer> {
  let body = made.encoded.get(encoding);
  if (!body) {
    body = encoding === 'br' ? brotli(made.html, BROTLI_OPTIONS) : gzip(made.html);
    made.encoded.set(encoding, body);
    // A failed compression is tried again by the next request.
    body.catch(() => made.encoded.delete(encoding));
  }
  return body;
}
