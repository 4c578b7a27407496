import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RenderFirstScreen } from '../../../shared/initial-data.js';
import { SEARCH_FORM, searchAddress } from '../../../shared/routes.js';
import type { CatalogueAnswers } from '../../cache/catalogue-answers.js';
import { isNotModified, sendConditional } from '../../http/conditional.js';
import { SESSION_COOKIE } from './sessions.js';
import { type BuildFiles, buildFilesOf, indexHtml } from './web/build-files.js';
import {
  encodedBody,
  newPageCache,
  type PageCache,
  type PageEncoding,
  pageOf,
  type RenderedPage,
  render,
} from './web/page-cache.js';
import { pageHtml } from './web/page-html.js';
import { type PagePlan, pagePlan } from './web/page-plan.js';

/** Paths that are never pages of the app: a miss there is a real 404, not the app's index. */
const NOT_PAGES = /^\/(api|images|uploads|assets)(\/|$)/;

interface WebAppOptions {
  webDir: string;
  apiNotFound: (request: FastifyRequest, reply: FastifyReply) => unknown;
  /** The catalogue's answers, the same (and from the same cache) as the API's. */
  answers: CatalogueAnswers;
}

/** What serving the app's pages needs: the build's files, the catalogue, the renderer and the pages made. */
interface PageServer {
  files: BuildFiles;
  answers: CatalogueAnswers;
  renderer: RenderFirstScreen | undefined;
  cache: PageCache;
}

/** The built app's files: hashed assets cached for a year, the rest revalidated, precompressed either way. */
async function registerAssets(app: FastifyInstance, webDir: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: webDir,
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
}

/** The first-screen renderer built beside the app (vite build --ssr), if it was built. */
async function loadRenderer(app: FastifyInstance, webDir: string, built: boolean): Promise<RenderFirstScreen | undefined> {
  const rendererFile = path.join(webDir, '.ssr', 'entry-server.js');
  const renderer: RenderFirstScreen | undefined =
    built && fs.existsSync(rendererFile)
      ? ((await import(pathToFileURL(rendererFile).href)) as { renderFirstScreen: RenderFirstScreen }).renderFirstScreen
      : undefined;
  if (built && !renderer) app.log.warn({ rendererFile }, 'no first-screen renderer: pages are drawn in the browser only');
  return renderer;
}

/**
 * The page of a plan, drawn by the app's own renderer when there is one, the page has data to
 * draw, and the visitor is new (`newVisitor`), at most once a second per address (page-cache.ts).
 */
function pageFor(server: PageServer, plan: PagePlan, newVisitor: boolean): Promise<RenderedPage> {
  const { renderer } = server;
  const drawable = newVisitor && renderer !== undefined && plan.data !== undefined;
  return render(server.cache, plan, drawable, async (draw) =>
    pageOf(await pageHtml(server.files, plan, draw ? renderer : undefined)),
  );
}

/** The encoding of the page's bytes: brotli, else gzip, else none, as the browser accepts. */
function pageEncoding(request: FastifyRequest): PageEncoding | undefined {
  const accepts = String(request.headers['accept-encoding'] ?? '');
  return /\bbr\b/.test(accepts) ? 'br' : /\bgzip\b/.test(accepts) ? 'gzip' : undefined;
}

async function sendPage(server: PageServer, request: FastifyRequest, reply: FastifyReply, pathname: string) {
  let made: RenderedPage;
  try {
    // Drawn for a new visitor at the plain address: a query (a sort, a filter) changes what the
    // screen shows, and a signed-in visitor sees their own header.
    const newVisitor = !request.cookies[SESSION_COOKIE] && !request.url.includes('?');
    made = await pageFor(server, await pagePlan(server.files, server.answers, pathname), newVisitor);
  } catch (error) {
    // The page works without its hints: the app asks the API itself.
    request.log.warn({ err: error }, 'could not prepare the page data');
    made = pageOf(indexHtml(server.files));
  }
  reply.header('cache-control', 'no-cache').header('vary', 'accept-encoding').type('text/html; charset=utf-8');
  const encoding = pageEncoding(request);
  // One tag per encoding: the bytes differ, and a strong tag names one exact body.
  const etag = `"${made.hash}${encoding ? `-${encoding}` : ''}"`;
  if (encoding) reply.header('content-encoding', encoding);
  // An unchanged page costs neither its compression nor its bytes.
  const body = isNotModified(request, etag) || !encoding ? made.html : await encodedBody(made, encoding);
  return sendConditional(request, reply, etag, () => body);
}

/**
 * The header's search before the app has taken a drawn page over: the browser submits the form
 * itself, and lands where the app would have navigated. A page's address, not the API's: left
 * out of the API's description.
 */
function registerSearchForm(app: FastifyInstance): void {
  app.get(SEARCH_FORM.action, { schema: { hide: true } }, (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const text = (name: string) => (typeof query[name] === 'string' ? query[name].trim() : '');
    const target = searchAddress(text(SEARCH_FORM.keyword), text(SEARCH_FORM.category));
    return reply.header('cache-control', 'no-cache').redirect(target, 303);
  });
}

/** Every GET or HEAD that is no file, API or asset path gets the app's page; anything else the API's 404. */
function registerPages(app: FastifyInstance, opts: WebAppOptions, server: PageServer | undefined): void {
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    if (!server || (request.method !== 'GET' && request.method !== 'HEAD') || NOT_PAGES.test(pathname)) {
      return opts.apiNotFound(request, reply);
    }
    return sendPage(server, request, reply, pathname);
  });
}

/**
 * Serves the built React app (dist/web): hashed assets precompressed (brotli or gzip) and cached
 * for a year; every other GET that is not an API or file path gets the app's page, never cached,
 * so the app's router shows the screen (or its own 404 screen). The home page and product pages
 * come with their first API data (the home page: its listing, top products and categories) and a preload of their main photo.
 */
export default fp(
  async function webApp(app: FastifyInstance, opts: WebAppOptions) {
    const files = buildFilesOf(opts.webDir);
    const built = fs.existsSync(files.indexFile);
    if (built) await registerAssets(app, opts.webDir);
    else app.log.warn({ webDir: opts.webDir }, 'the web app is not built (npm run build); only the API is served');
    const renderer = await loadRenderer(app, opts.webDir, built);
    const server = built ? { files, answers: opts.answers, renderer, cache: newPageCache() } : undefined;
    registerSearchForm(app);
    registerPages(app, opts, server);
  },
  { name: 'web-app' },
);
