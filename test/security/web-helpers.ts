import fs from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { openDatabase } from '../../src/server/db/client.js';
import { sharedSecret } from '../../src/server/db/meta.js';
import { webDistDir } from '../../src/server/paths.js';
import { ApiClient, type ApiResponse } from '../support/client.js';
import { startMain } from '../support/main-process.js';
import { freePort } from '../support/ports.js';
import { freshPostgresUrl, shopDataDir } from '../support/shop.js';

/** The built web app the browser tests load: WEB_DIR when set (a private build), else dist/web. */
export const WEB_DIR = process.env.WEB_DIR ?? webDistDir;

declare global {
  interface Window {
    /** CSP violations seen by the page, recorded by {@link watchPage}'s init script. */
    __csp?: string[];
    /** Set by the stored-XSS payloads if one of them ever runs. */
    __xss?: unknown;
    /** Set by the inline script the CSP test injects, if it ever runs. */
    __inlineRan?: unknown;
  }
}

/** What a page did that a secure shop must not let it do: CSP violations, dialogs, page errors. */
export interface Watched {
  page: Page;
  context: BrowserContext;
  /** This document's `securitypolicyviolation` events, as "directive blockedURI source:line". */
  cspEvents(): Promise<string[]>;
  /** Chromium's console reports about the Content Security Policy, from every document of the page. */
  cspConsole: string[];
  /** Both: this document's events, then every console report. */
  cspViolations(): Promise<string[]>;
  /** alert / confirm / prompt dialogs opened by the page (a payload that ran). */
  dialogs: string[];
  /** Uncaught errors and console errors other than the expected 401/403/404 answers. */
  problems: string[];
}

/**
 * A page that records every CSP violation (from the document's `securitypolicyviolation` event,
 * installed before any of the app's scripts run, and from Chromium's console report), every
 * dialog and every error. Dialogs are dismissed so a payload that opens one cannot hang the test.
 */
export async function watchPage(context: BrowserContext): Promise<Watched> {
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (event: SecurityPolicyViolationEvent) => {
      window.__csp?.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  const page = await context.newPage();
  const consoleCsp: string[] = [];
  const dialogs: string[] = [];
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    if (/Content[ -]Security[ -]Policy/i.test(text)) consoleCsp.push(`console ${message.type()}: ${text}`);
    else if (
      message.type() === 'error' &&
      !/Failed to load resource: the server responded with a status of (401|403|404)/.test(text)
    ) {
      problems.push(`console: ${text}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  const cspEvents = () => page.evaluate(() => window.__csp ?? []);
  return {
    page,
    context,
    dialogs,
    problems,
    cspEvents,
    cspConsole: consoleCsp,
    async cspViolations() {
      return [...(await cspEvents()), ...consoleCsp];
    },
  };
}

/** One request and its answer, as the recording client saw them. */
export interface Exchange {
  request: string;
  status: number;
  body: string;
  /** The cookies it set, as [name, value]. */
  cookies: [string, string][];
}

/** An ApiClient that keeps every answer it receives, so a test can search them all afterwards. */
export class RecordingClient extends ApiClient {
  constructor(
    baseUrl: string,
    private readonly log: Exchange[],
  ) {
    super(baseUrl);
  }

  override async request<T = unknown>(
    method: string,
    urlPath: string,
    options: Parameters<ApiClient['request']>[2] = {},
  ): Promise<ApiResponse<T>> {
    const res = await super.request<T>(method, urlPath, options);
    this.log.push({
      request: `${method} ${urlPath}`,
      status: res.status,
      body: typeof res.body === 'string' ? res.body : JSON.stringify(res.body),
      cookies: res.headers.getSetCookie().map((line): [string, string] => {
        const pair = line.split(';')[0] ?? '';
        const eq = pair.indexOf('=');
        return [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      }),
    });
    return res;
  }
}

/** The real entry point (src/server/main.ts) in a child process, with its log captured line by line. */
export interface ChildShop {
  url: string;
  dataDir: string;
  /** Every line the process wrote to stdout and stderr so far. */
  logLines(): string[];
  /** Every answer received by clients made with {@link ChildShop.client}. */
  exchanges: Exchange[];
  client(): RecordingClient;
  /** Every non-empty value of a cookie the shop set for those clients. */
  seenCookies(name: string): string[];
  /** The M-Pesa callback secret from the shop_meta table (read after {@link ChildShop.stop}). */
  callbackSecret(): Promise<string>;
  /** SIGTERM, and waits for a clean exit. */
  stop(): Promise<number | null>;
  /** Removes the data folder and database. */
  cleanup(): Promise<void>;
}

export async function startChildShop(env: Record<string, string>): Promise<ChildShop> {
  const dataDir = await shopDataDir('duka-web-sec-');
  const port = await freePort();
  const postgres = process.env.TEST_DATABASE_URL ? await freshPostgresUrl(process.env.TEST_DATABASE_URL) : undefined;
  // A fresh shop migrates and seeds first: on a loaded 2-core machine that alone can take a minute.
  const shop = await startMain(
    { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ...(postgres && { DATABASE_URL: postgres.url }), ...env },
    90_000,
  );
  const url = `http://127.0.0.1:${port}`;
  const exchanges: Exchange[] = [];
  let stopped = false;
  return {
    url,
    dataDir,
    exchanges,
    logLines: () =>
      shop
        .output()
        .split('\n')
        .filter((line) => line.trim() !== ''),
    client: () => new RecordingClient(url, exchanges),
    seenCookies: (name) => exchanges.flatMap((e) => e.cookies.filter(([n, v]) => n === name && v !== '').map(([, v]) => v)),
    async callbackSecret() {
      const database = await openDatabase(
        postgres ? { url: postgres.url, poolSize: 1 } : { url: undefined, pgliteDir: path.join(dataDir, 'pglite') },
      );
      try {
        return await sharedSecret(database.db, 'mpesa_callback_secret');
      } finally {
        await database.close();
      }
    },
    async stop() {
      if (!stopped) {
        stopped = true;
        shop.child.kill('SIGTERM');
      }
      return (await shop.exited).code;
    },
    async cleanup() {
      if (!stopped) {
        stopped = true;
        await shop.kill();
      }
      await postgres?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The attributes of one Set-Cookie line, by lower-cased name (`secure`, `httponly`, `samesite` …). */
export function cookieAttributes(setCookie: string[], name: string): Map<string, string> | undefined {
  const line = setCookie.find((l) => l.startsWith(`${name}=`));
  if (!line) return undefined;
  const attributes = new Map<string, string>();
  for (const part of line.split(';').slice(1)) {
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    attributes.set(key, eq < 0 ? '' : part.slice(eq + 1).trim());
  }
  return attributes;
}

/** Another origin on the same host (another port: same site, so SameSite=Lax cookies still go along). */
export async function startOtherSite(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Signs in through the login screen and waits for the home page. */
export async function signInInBrowser(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL((url) => url.pathname === '/');
}

/** Waits (up to `timeout` ms) for the locator's first match to be visible. */
export async function visible(locator: Locator, what: string, timeout = 10_000) {
  await expect.poll(() => locator.first().isVisible(), { message: what, timeout }).toBe(true);
}
