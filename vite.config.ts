import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { type ConfigEnv, defineConfig, type Plugin, type UserConfig } from 'vite';
import { preloadScreens } from './src/shared/routes.ts';

// The storefront and admin: a React app built into dist/web, which the API server serves.
// `npm run dev:web` serves it with hot reload and sends API and image requests to the server on :3000.
const server = 'http://localhost:3000';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/** The browser's build (not the server renderer's, `--ssr`): only it is sent to browsers. */
const clientBuild = (_config: UserConfig, env: ConfigEnv) => env.command === 'build' && !env.isSsrBuild;

/** Files worth compressing: text, and big enough that the encoding header costs less than it saves. */
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;
const MIN_BYTES = 1024;

/**
 * Writes a .gz and a .br beside every text file of the build, at the highest levels (done once
 * at build time, so the server spends no CPU on it and the phone downloads the fewest bytes).
 * The server sends them to browsers that accept them (src/server/plugins/shop/web.ts).
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'duka-precompress',
    apply: clientBuild,
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = fs.readdirSync(outDir, { recursive: true, encoding: 'utf8' });
      await Promise.all(
        files
          .filter((file) => COMPRESSIBLE.test(file) && !file.startsWith('.vite'))
          .map(async (file) => {
            const full = path.join(outDir, file);
            const body = fs.readFileSync(full);
            if (body.length < MIN_BYTES) return;
            const [gz, br] = await Promise.all([
              gzip(body, { level: zlib.constants.Z_BEST_COMPRESSION }),
              brotli(body, {
                params: {
                  [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
                  [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
                },
              }),
            ]);
            fs.writeFileSync(`${full}.gz`, gz);
            fs.writeFileSync(`${full}.br`, br);
          }),
      );
    },
  };
}

/**
 * Writes .vite/routes.json beside the manifest: the screen module of each route the server
 * preloads, by route id, so the server (src/server/plugins/shop/web.ts) finds a route's files in the
 * manifest without knowing where its screen lives.
 */
function routeModules(): Plugin {
  return {
    name: 'duka-route-modules',
    apply: clientBuild,
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: '.vite/routes.json', source: JSON.stringify(preloadScreens()) });
    },
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  root: 'src/web',
  plugins: [react(), precompress(), routeModules()],
  resolve: {
    // Every `import … from 'zod'` of the web app (its own and src/shared's) goes through
    // src/web/zod-jitless.ts, which turns zod's eval probe off before any schema is built: the
    // probe runs when an object schema is constructed, and the CSP reports it (see that file).
    alias: [{ find: /^zod$/, replacement: path.resolve(import.meta.dirname, 'src/web/zod-jitless.ts') }],
  },
  css: {
    preprocessorOptions: {
      scss: {
        // Bootstrap 5.3's Sass still uses @import and global functions; its warnings are not ours.
        quietDeps: true,
        silenceDeprecations: ['import', 'global-builtin', 'color-functions', 'if-function'],
      },
    },
  },
  build: isSsrBuild
    ? {
        // The server's renderer of first screens (src/web/entry-server.tsx), beside the browser's
        // build it matches and replaced with it; never sent to browsers (src/server/plugins/shop/web.ts).
        outDir: '../../dist/web/.ssr',
        emptyOutDir: true,
        copyPublicDir: false,
      }
    : {
        outDir: '../../dist/web',
        emptyOutDir: true,
        sourcemap: true,
        // Which files each screen needs: the server names them in a page's head so they download
        // with the app's code, not after it (src/server/plugins/shop/web.ts).
        manifest: true,
        rolldownOptions: {
          input: {
            index: path.resolve(import.meta.dirname, 'src/web/index.html'),
            // The script of a page the server drew, which loads the app after the page's photo.
            'after-photo': path.resolve(import.meta.dirname, 'src/web/after-photo.ts'),
          },
          output: {
            // React DOM and the router in chunks of their own: after-photo.ts runs each module of the
            // entry in a task of its own, and together with the app's code they were one long task.
            codeSplitting: {
              groups: [{ name: 'react-dom', test: /node_modules[\\/](react-dom|scheduler)[\\/]/ }],
            },
          },
        },
      },
  // One file with every dependency in it, so the server loads the renderer with a plain import.
  ssr: { noExternal: true },
  server: {
    proxy: { '/api': server, '/images': server, '/uploads': server },
  },
}));
