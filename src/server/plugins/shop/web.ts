import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';
import { imageSrcSet, imageUrl, isShopImage } from '../../../shared/images.js';
import { INITIAL_DATA_ID, type InitialData, type RenderFirstScreen } from '../../../shared/initialData.js';
import { CARD_PHOTO_SIZES, DETAIL_PHOTO_SIZES, SLIDE_PHOTO_SIZES } from '../../../shared/photoSizes.js';
import { matchRoute, ROUTES, type RouteId, SEARCH_FORM, searchAddress } from '../../../shared/routes.js';
import { idParams } from '../../../shared/schemas/common.js';
import type { CategoryCount, Product, ProductDetail, ProductPage } from '../../../shared/schemas/products.js';
import type { CatalogAnswers } from '../../cache/catalog-answers.js';
import type { CachedAnswer } from '../../cache/catalog-cache.js';
import { AppError } from '../../errors.js';
import { isNotModified, sendConditional } from '../../http/conditional.js';
import { SESSION_COOKIE } from './sessions.js';

/** Paths that are never pages of the app: a miss there is a real 404, not the app's index. */
const NOT_PAGES = /^\/(api|images|uploads|assets)(\/|$)/;
/** Vite's build manifest (dist/web/.vite/manifest.json), as far as used here. */
type Manifest = Record<string, { file: string; imports?: string[]; css?: string[] }>;

/**
 * The build's .vite/routes.json: the screen module (a manifest key) of each route whose screen is
 * named in the page's head when a visitor opens it first (`preload` in src/shared/routes.ts).
 */
type RouteModules = Partial<Record<RouteId, string>>;

/** The JS and CSS files a manifest entry loads, with everything it imports statically. */
function filesOf(manifest: Manifest, key: string, seen = new Set<string>()): { js: Set<string>; css: Set<string> } {
  const found = { js: new Set<string>(), css: new Set<string>() };
  const visit = (k: string) => {
    const chunk = manifest[k];
    if (!chunk || seen.has(k)) return;
    seen.add(k);
    found.js.add(chunk.file);
    for (const css of chunk.css ?? []) found.css.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(key);
  return found;
}

const escapeAttr = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A preload of a photo the page shows, with the srcset and sizes of its <img> so the browser picks the same file. */
function photoPreload(image: string, sizes: string, high: boolean): string {
  if (!isShopImage(image)) return '';
  const srcset = imageSrcSet(image) ?? '';
  return `<link rel="preload" as="image" href="${escapeAttr(imageUrl(image, 640))}" imagesrcset="${escapeAttr(srcset)}" imagesizes="${escapeAttr(sizes)}"${high ? ' fetchpriority="high"' : ''}>`;
}

type PageEncoding = 'br' | 'gzip';

interface RenderedPage {
  html: string;
  hash: string;
  encoded: Map<PageEncoding, Promise<Buffer>>;
}

const pageOf = (html: string): RenderedPage => ({
  html,
  hash: createHash('sha1').update(html).digest('base64url'),
  encoded: new Map(),
});

/**
 * What a page embeds: the key it is cached under (the build, the screen, and the ETags of the
 * catalogue answers it carries, so it changes exactly when they do), the route whose code it
 * names, and on the pages the server draws, the data its first screen shows and how to make the
 * rest of its head from it.
 */
interface PagePlan {
  pathname: string;
  route: RouteId | undefined;
  key: string;
  head?: (data: InitialData) => string;
  data?: () => InitialData;
}

/** The shortest time between two drawings of one address's first screen (see render). */
const REDRAW_INTERVAL_MS = 1000;

/** The app's mount point in index.html, where a drawn first screen goes. */
const EMPTY_ROOT = '<div id="root"></div>';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** Compressed once per page and version, so a slower, smaller setting pays. */
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } };

/**
 * The data as the text of a <template>: inert, never a script, and HTML-escaped so that no
 * product name can end the element early. The browser gives the JSON back as the text.
 */
const dataBlock = (data: InitialData) => `<template id="${INITIAL_DATA_ID}">${escapeAttr(JSON.stringify(data))}</template>`;

/**
 * Serves the built React app (dist/web): hashed assets precompressed (brotli or gzip) and cached
 * for a year; every other GET that is not an API or file path gets the app's page, never cached,
 * so the app's router shows the screen (or its own 404 screen). The home page and product pages
 * come with their first API data (the home page: its listing, top products and categories) and a preload of their main photo.
 */
export default fp(
  async function webApp(
    app: FastifyInstance,
    opts: {
      webDir: string;
      apiNotFound: (request: FastifyRequest, reply: FastifyReply) => unknown;
      /** The catalogue's answers, the same (and from the same cache) as the API's. */
      answers: CatalogAnswers;
    },
  ) {
    const indexFile = path.join(opts.webDir, 'index.html');
    const built = fs.existsSync(indexFile);
    if (built) {
      await app.register(fastifyStatic, {
        root: opts.webDir,
        prefix: '/',
        wildcard: false,
        index: false,
        // The build's manifest and the first-screen renderer are for this server, not for browsers.
        allowedPath: (pathname) => !pathname.startsWith('/.vite/') && !pathname.startsWith('/.ssr/'),
        // The build writes a .br and a .gz beside each text file (vite.config.ts): send the
        // smallest one the browser accepts, with no compression work per request.
        preCompressed: true,
        // Our own cache-control below, not send's default "public, max-age=0" written over it.
        cacheControl: false,
        setHeaders: (res, filePath) => {
          const hashed = filePath.includes(`${path.sep}assets${path.sep}`);
          res.setHeader('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
          // The same address answers brotli, gzip or plain bytes depending on the request.
          res.setHeader('vary', 'accept-encoding');
        },
      });
    } else {
      app.log.warn({ webDir: opts.webDir }, 'the web app is not built (npm run build); only the API is served');
    }

    // The first-screen renderer built beside the app (vite build --ssr), if it was built.
    const rendererFile = path.join(opts.webDir, '.ssr', 'entry-server.js');
    const renderer: RenderFirstScreen | undefined =
      built && fs.existsSync(rendererFile)
        ? ((await import(pathToFileURL(rendererFile).href)) as { renderFirstScreen: RenderFirstScreen }).renderFirstScreen
        : undefined;
    if (built && !renderer) app.log.warn({ rendererFile }, 'no first-screen renderer: pages are drawn in the browser only');

    // index.html, read again only when a new build replaces it. Looked at no more than once a
    // second, not on every request: a deploy that rebuilds in place shows within a second.
    let page = { mtimeMs: -1, html: '' };
    let lookedAt = 0;
    function indexHtml(): string {
      const now = Date.now();
      if (now - lookedAt >= 1000 || page.mtimeMs < 0) {
        lookedAt = now;
        const { mtimeMs } = fs.statSync(indexFile);
        if (mtimeMs !== page.mtimeMs) page = { mtimeMs, html: fs.readFileSync(indexFile, 'utf8') };
      }
      return page.html;
    }

    // The manifest and the routes' modules, read again only when a new build replaces them.
    const manifestFile = path.join(opts.webDir, '.vite', 'manifest.json');
    const routesFile = path.join(opts.webDir, '.vite', 'routes.json');
    let manifest = { mtimeMs: -1, entries: {} as Manifest, routes: {} as RouteModules };
    let manifestLookedAt = 0;
    function readManifest(): { entries: Manifest; routes: RouteModules } {
      const now = Date.now();
      if (now - manifestLookedAt < 1000 && manifest.mtimeMs >= 0) return manifest;
      manifestLookedAt = now;
      const stat = fs.statSync(manifestFile, { throwIfNoEntry: false });
      if (!stat) return { entries: {}, routes: {} };
      if (stat.mtimeMs !== manifest.mtimeMs) {
        const routes = fs.existsSync(routesFile) ? (JSON.parse(fs.readFileSync(routesFile, 'utf8')) as RouteModules) : {};
        manifest = { mtimeMs: stat.mtimeMs, entries: JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest, routes };
      }
      return manifest;
    }

    /** The JS and CSS files of the screen at this path that index.html does not load already. */
    function screenFiles(route: RouteId | undefined): { js: string[]; css: string[] } {
      const { entries, routes } = readManifest();
      const screen = route && ROUTES[route].preload ? routes[route] : undefined;
      if (!screen) return { js: [], css: [] };
      const inIndex = filesOf(entries, 'index.html');
      const { js, css } = filesOf(entries, screen);
      return { js: [...js].filter((f) => !inIndex.js.has(f)), css: [...css].filter((f) => !inIndex.css.has(f)) };
    }

    const stylesheet = (file: string) => `<link rel="stylesheet" crossorigin href="/${escapeAttr(file)}">`;
    const modulePreload = (file: string) => `<link rel="modulepreload" crossorigin href="/${escapeAttr(file)}">`;

    /**
     * index.html with the app's script, and the module preloads of it that Vite wrote, replaced by
     * the build's afterPhoto script (src/web/afterPhoto.ts), which asks for them, and for the
     * screen's own modules, once the drawn page's photo is on screen. Unchanged for a build that
     * has no such script or whose page is written differently.
     */
    function appAfterPhoto(html: string, screenScripts: string[]): string {
      const { entries } = readManifest();
      const index = entries['index.html'];
      const loader = entries['afterPhoto.ts'];
      if (!index || !loader) return html;
      const appScript = `<script type="module" crossorigin src="/${index.file}"></script>`;
      if (!html.includes(appScript)) return html;
      const appModules = [...filesOf(entries, 'index.html').js];
      let deferred = html;
      for (const file of appModules) deferred = deferred.replace(modulePreload(file), '');
      const entryImports = appModules.filter((f) => f !== index.file);
      const modules = [index.file, ...entryImports, ...screenScripts].map((f) => `/${f}`).join(' ');
      const loaderScript = `<script type="module" crossorigin src="/${escapeAttr(loader.file)}" data-modules="${escapeAttr(modules)}" data-entry-imports="${entryImports.length}"></script>`;
      return deferred.replace(appScript, loaderScript);
    }

    /**
     * A catalogue answer as the API gives it; undefined for a product that does not exist. Taken
     * from the cache directly rather than by app.inject: injected requests, with their own object
     * shapes, made the server's hot request path polymorphic and cost the API a quarter of its
     * throughput (npm run bench, after pages had been served).
     */
    async function answer(get: () => Promise<CachedAnswer>): Promise<CachedAnswer | undefined> {
      try {
        return await get();
      } catch (error) {
        if (error instanceof AppError && error.statusCode === 404) return undefined;
        throw error;
      }
    }

    const parse = <T>(cached: CachedAnswer) => JSON.parse(cached.body) as T;

    async function pagePlan(pathname: string): Promise<PagePlan> {
      // Both read first, so that the key names this build from the first request on.
      const html = indexHtml();
      readManifest();
      const build = `${html.length}:${page.mtimeMs}:${manifest.mtimeMs}`;
      const matched = matchRoute(pathname);
      const route = matched?.id;
      if (route === 'home') {
        const [products, top, categories] = await Promise.all([
          answer(() => opts.answers.page({ page: 1, keyword: '' })),
          answer(() => opts.answers.top()),
          answer(() => opts.answers.categories()),
        ]);
        const data = () => ({
          products: products && parse<ProductPage>(products),
          top: top && parse<Product[]>(top),
          categories: categories && parse<CategoryCount[]>(categories),
        });
        return {
          pathname,
          route,
          key: `${build}|/|${products?.etag}|${top?.etag}|${categories?.etag}`,
          head: homeData,
          data,
        };
      }
      const id = matched?.id === 'product' ? matched.params.id : undefined;
      if (id && idParams.safeParse({ id }).success) {
        const product = await answer(() => opts.answers.detail(id));
        if (!product) return { pathname, route, key: `${build}|product|${id}|none` };
        return {
          pathname,
          route,
          key: `${build}|product|${id}|${product.etag}`,
          head: ({ product: detail }) =>
            detail ? photoPreload(detail.image, DETAIL_PHOTO_SIZES, true) + dataBlock({ product: detail }) : '',
          data: () => ({ product: parse<ProductDetail>(product) }),
        };
      }
      const screen = route && ROUTES[route].preload ? route : 'none';
      return { pathname, route, key: `${build}|screen|${screen}` };
    }

    function homeData({ products, top, categories }: InitialData): string {
      const first = products?.products[0];
      const slide = top?.[0];
      return [
        first ? photoPreload(first.image, CARD_PHOTO_SIZES, true) : '',
        slide ? photoPreload(slide.image, SLIDE_PHOTO_SIZES, false) : '',
        dataBlock({ products, top, categories }),
      ].join('');
    }

    /** Pages as sent, by plan key: made once, and compressed once per encoding, off the event loop. */
    const rendered = new LRUCache<string, RenderedPage>({
      maxSize: 16 * 1024 * 1024,
      sizeCalculation: (p) => p.html.length * 2,
    });

    /** Pages being made, by the same key: one render however many visitors ask at once. */
    const making = new Map<string, Promise<RenderedPage>>();

    /** When each address's page was last drawn: the bound on drawing while its data keeps changing. */
    const lastDrawn = new LRUCache<string, number>({ max: 10_000 });

    /**
     * The page of a plan, with its first screen drawn by the app's own renderer when there is
     * one, the page has data to draw, and the visitor is new (`newVisitor`): a signed-in
     * visitor's page differs, and the browser draws it (src/web/main.tsx). Drawing takes a few
     * milliseconds of this thread, so an address is drawn at most once per REDRAW_INTERVAL_MS:
     * during a sale every order changes the stock a page shows, and a page whose data changed
     * sooner than that is sent undrawn, with its new data, for the browser to draw.
     */
    function render(plan: PagePlan, newVisitor: boolean): Promise<RenderedPage> {
      if (newVisitor && renderer !== undefined && plan.data !== undefined) {
        const drawnKey = `${plan.key}|drawn`;
        const now = Date.now();
        const last = lastDrawn.get(plan.pathname);
        const due = last === undefined || now - last >= REDRAW_INTERVAL_MS || now < last;
        const ready = rendered.has(drawnKey) || making.has(drawnKey);
        if (ready || due) {
          if (!ready) lastDrawn.set(plan.pathname, now);
          return madeOnce(drawnKey, () => makePage(plan, true));
        }
      }
      return madeOnce(`${plan.key}|bare`, () => makePage(plan, false));
    }

    /** The page under this key, made once however many visitors ask for it at the same time. */
    function madeOnce(key: string, make: () => Promise<RenderedPage>): Promise<RenderedPage> {
      const kept = rendered.get(key) ?? making.get(key);
      if (kept) return Promise.resolve(kept);
      const pending = make().finally(() => making.delete(key));
      making.set(key, pending);
      pending.then((page) => rendered.set(key, page)).catch(() => undefined);
      return pending;
    }

    async function makePage(plan: PagePlan, draw: boolean): Promise<RenderedPage> {
      const data = plan.data?.() ?? {};
      const drawn = draw && renderer !== undefined;
      const screen = screenFiles(plan.route);
      // A drawn page needs its styles at once, and its code only once its photo is on screen.
      const head = [...screen.css.map(stylesheet), ...(drawn ? [] : screen.js.map(modulePreload)), plan.head?.(data) ?? ''].join(
        '',
      );
      let html = head ? indexHtml().replace('</head>', `${head}</head>`) : indexHtml();
      if (drawn) {
        const firstScreen = await renderer(plan.pathname, data);
        html = appAfterPhoto(html, screen.js).replace(EMPTY_ROOT, `<div id="root">${firstScreen}</div>`);
      }
      return pageOf(html);
    }

    function encodedBody(made: RenderedPage, encoding: PageEncoding): Promise<Buffer> {
      let body = made.encoded.get(encoding);
      if (!body) {
        body = encoding === 'br' ? brotli(made.html, BROTLI_OPTIONS) : gzip(made.html);
        made.encoded.set(encoding, body);
        // A failed compression is tried again by the next request.
        body.catch(() => made.encoded.delete(encoding));
      }
      return body;
    }

    async function sendPage(request: FastifyRequest, reply: FastifyReply, pathname: string) {
      let made: RenderedPage;
      try {
        // Drawn for a new visitor at the plain address: a query (a sort, a filter) changes what the
        // screen shows, and a signed-in visitor sees their own header.
        const newVisitor = !request.cookies[SESSION_COOKIE] && !request.url.includes('?');
        made = await render(await pagePlan(pathname), newVisitor);
      } catch (error) {
        // The page works without its hints: the app asks the API itself.
        request.log.warn({ err: error }, 'could not prepare the page data');
        made = pageOf(indexHtml());
      }
      reply.header('cache-control', 'no-cache').header('vary', 'accept-encoding').type('text/html; charset=utf-8');
      const accepts = String(request.headers['accept-encoding'] ?? '');
      const encoding: PageEncoding | undefined = /\bbr\b/.test(accepts) ? 'br' : /\bgzip\b/.test(accepts) ? 'gzip' : undefined;
      // One tag per encoding: the bytes differ, and a strong tag names one exact body.
      const etag = `"${made.hash}${encoding ? `-${encoding}` : ''}"`;
      if (encoding) reply.header('content-encoding', encoding);
      // An unchanged page costs neither its compression nor its bytes.
      const body = isNotModified(request, etag) || !encoding ? made.html : await encodedBody(made, encoding);
      return sendConditional(request, reply, etag, () => body);
    }

    // The header's search before the app has taken a drawn page over: the browser submits the form
    // itself, and lands where the app would have navigated. A page's address, not the API's: left
    // out of the API's description.
    app.get(SEARCH_FORM.action, { schema: { hide: true } }, (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const text = (name: string) => (typeof query[name] === 'string' ? query[name].trim() : '');
      const target = searchAddress(text(SEARCH_FORM.keyword), text(SEARCH_FORM.category));
      return reply.header('cache-control', 'no-cache').redirect(target, 303);
    });

    app.setNotFoundHandler((request, reply) => {
      const pathname = request.url.split('?')[0] ?? '/';
      if (!built || (request.method !== 'GET' && request.method !== 'HEAD') || NOT_PAGES.test(pathname)) {
        return opts.apiNotFound(request, reply);
      }
      return sendPage(request, reply, pathname);
    });
  },
  { name: 'web-app' },
);
