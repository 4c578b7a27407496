import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Paths that are never pages of the app: a miss there is a real 404, not the app's index. */
const NOT_PAGES = /^\/(api|images|uploads|assets)(\/|$)/;

/**
 * Serves the built React app (dist/web): hashed assets cached for a year, index.html never
 * cached, both precompressed (brotli or gzip), and every other GET that is not an API or file path answered with index.html so the
 * app's router shows the screen (or its own 404 screen).
 */
export default fp(
  async function webApp(
    app: FastifyInstance,
    opts: { webDir: string; apiNotFound: (request: FastifyRequest, reply: FastifyReply) => unknown },
  ) {
    const indexFile = path.join(opts.webDir, 'index.html');
    const built = fs.existsSync(indexFile);
    if (built) {
      await app.register(fastifyStatic, {
        root: opts.webDir,
        prefix: '/',
        wildcard: false,
        index: false,
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

    app.setNotFoundHandler((request, reply) => {
      const pathname = request.url.split('?')[0] ?? '/';
      if (!built || (request.method !== 'GET' && request.method !== 'HEAD') || NOT_PAGES.test(pathname)) {
        return opts.apiNotFound(request, reply);
      }
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html', opts.webDir);
    });
  },
  { name: 'web-app' },
);
