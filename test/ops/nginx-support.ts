import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { vi } from 'vitest';
import { within } from '../reliability/fault-process.js';

/**
 * deploy/nginx.conf run for real by the tests: rendered with test ports and a test certificate
 * into a temporary prefix (nothing under /etc or /var), with nginx as a child process.
 */

const CONFIG = path.resolve('deploy/nginx.conf');

export function findNginx(): string | undefined {
  for (const candidate of [process.env.NGINX_PATH, '/usr/sbin/nginx', '/usr/bin/nginx']) {
    if (candidate && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}
export const NGINX = findNginx();

/** deploy/nginx.conf with test ports and paths; every substitution must apply, or the test is stale. */
export function renderConfig(source: string, ports: Ports, prefix: string): string {
  const substitutions: [RegExp, string][] = [
    [/^\s*listen \[::\]:.*$\n/gm, ''],
    [/listen 80;/g, `listen 127.0.0.1:${ports.http};`],
    [/listen 443 ssl/g, `listen 127.0.0.1:${ports.https} ssl`],
    // Whole ports only: a listen port drawn above (30015, say) must not be taken for upstream 3001.
    [/127\.0\.0\.1:3001\b/g, `127.0.0.1:${ports.upstreams[0]}`],
    [/127\.0\.0\.1:3002\b/g, `127.0.0.1:${ports.upstreams[1]}`],
    [/\/etc\/letsencrypt\/live\/shop\.example\.co\.ke\//g, `${prefix}/tls/`],
    [/\/var\/www\/letsencrypt/g, `${prefix}/www`],
  ];
  let text = source;
  for (const [pattern, replacement] of substitutions) {
    if (!pattern.test(text)) throw new Error(`deploy/nginx.conf no longer contains ${pattern}`);
    text = text.replace(pattern, replacement);
  }
  return text;
}

/** fetch over https.request with the test CA: Node's global fetch cannot be given one. */
export function fetchWithCa(ca: string, localAddress?: string): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const request = https.request(
        String(input),
        {
          method: init?.method ?? 'GET',
          headers: init?.headers as Record<string, string>,
          ca,
          ...(localAddress && { localAddress }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const headers = new Headers();
            for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
              headers.append(res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '');
            const status = res.statusCode ?? 500;
            resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      request.on('error', reject);
      const body = init?.body;
      if (typeof body === 'string' || body instanceof Uint8Array) request.write(body);
      else if (body != null) reject(new Error('fetchWithCa sends strings and bytes only'));
      request.end();
    })) as typeof fetch;
}

/** nginx's command line for a prefix made by writePrefix: nothing outside it is read or written. */
export function nginxArgs(prefix: string): string[] {
  return ['-p', prefix, '-e', `${prefix}/logs/error.log`, '-c', `${prefix}/nginx.conf`];
}

export type Ports = { http: number; https: number; upstreams: [number, number] };

/** A self-contained nginx prefix: a test certificate, deploy/nginx.conf rendered, a main config including it. */
export async function writePrefix(prefix: string, ports: Ports): Promise<void> {
  for (const dir of ['tls', 'www', 'logs', 'temp', 'data']) await fsp.mkdir(path.join(prefix, dir));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      path.join(prefix, 'tls', 'privkey.pem'),
      '-out',
      path.join(prefix, 'tls', 'fullchain.pem'),
    ],
    { stdio: 'ignore' },
  );
  const rendered = renderConfig(await fsp.readFile(CONFIG, 'utf8'), ports, prefix);
  await fsp.writeFile(path.join(prefix, 'duka.conf'), rendered);
  const temp = (name: string) => `${name}_temp_path ${prefix}/temp/${name};`;
  await fsp.writeFile(
    path.join(prefix, 'nginx.conf'),
    [
      // Started as root (CI), nginx would hand its workers to "nobody", who cannot enter the prefix.
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      'worker_processes 1;',
      `pid ${prefix}/nginx.pid;`,
      `error_log ${prefix}/logs/error.log warn;`,
      'events { worker_connections 512; }',
      'http {',
      `  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}`,
      `  log_format upstreams '$status "$request" $upstream_addr';`,
      `  access_log ${prefix}/logs/access.log upstreams;`,
      `  include ${prefix}/duka.conf;`,
      '}',
    ].join('\n'),
  );
}

export async function waitForOutput(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  let output = '';
  return within(
    new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (pattern.test(output)) resolve(output);
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.on('exit', (code) => reject(new Error(`${what} exited (${code}):\n${output}`)));
    }),
    60_000,
    what,
  );
}

export interface RunningNginx {
  /** https://127.0.0.1:<port>, the shop's public address through nginx. */
  base: string;
  httpPort: number;
  /** The test CA's certificate, for fetchWithCa. */
  ca: string;
  accessLog(): string;
  /** nginx's warnings and errors: why an upstream failed (reset, refused, closed early). */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

/** nginx run from a prefix made by writePrefix; resolves once /api/health answers 200 through it. */
export async function startNginx(prefix: string, ports: Ports): Promise<RunningNginx> {
  if (!NGINX) throw new Error('nginx not found: apt-get install -y nginx (or set NGINX_PATH)');
  const ca = await fsp.readFile(path.join(prefix, 'tls', 'fullchain.pem'), 'utf8');
  const base = `https://127.0.0.1:${ports.https}`;
  const nginx = spawn(NGINX, [...nginxArgs(prefix), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  nginx.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => nginx.on('exit', () => resolve()));
  const stop = async () => {
    nginx.kill('SIGQUIT');
    await within(exited, 10_000, 'nginx shutdown').catch(() => nginx.kill('SIGKILL'));
  };
  const get = fetchWithCa(ca);
  const state = await vi
    .waitUntil(
      async () => {
        if (nginx.exitCode !== null) return 'exited';
        const res = await get(`${base}/api/health`).catch(() => undefined);
        return res?.status === 200 && 'up';
      },
      { timeout: 20_000, interval: 100 },
    )
    .catch(() => 'silent' as const);
  if (state === 'exited') throw new Error(`nginx exited:\n${output}`);
  if (state === 'silent') {
    await stop();
    throw new Error(`nginx did not answer:\n${output}`);
  }
  return {
    base,
    httpPort: ports.http,
    ca,
    accessLog: () => fs.readFileSync(path.join(prefix, 'logs', 'access.log'), 'utf8'),
    errorLog: () => fsp.readFile(path.join(prefix, 'logs', 'error.log'), 'utf8'),
    stop,
  };
}
