import type { FastifyContextConfig } from 'fastify';
import { matchRoute, ROUTES } from '../../shared/routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Path parameters that are credentials (a callback secret, a reset token): wherever the
     * request's URL is logged, their segments read [redacted].
     */
    secretParams?: readonly string[];
  }
}

export const REDACTED = '[redacted]';

/** A parameter of this name is a credential on any route, declared or not: a new route that forgets to say so still leaks nothing. */
const ALWAYS_SECRET = 'token';

/** What a log serializer is handed as `req`: Fastify's request, or anything with a URL. */
export interface LoggedRequest {
  url?: string;
  routeOptions?: { url?: string | undefined; config?: FastifyContextConfig | undefined };
}

/**
 * The request's URL as logs may show it: each path segment that a secret parameter of the
 * matched route fills replaced with [redacted]. The route is Fastify's, or for a page the web
 * app draws (served without a route of its own), the screen's in src/shared/routes.ts. A URL that
 * matched no route is returned as it came.
 */
export function redactedUrl(request: LoggedRequest): string {
  const url = request.url ?? '';
  const route = request.routeOptions?.url;
  if (route) return redactPath(url, route, secretNames(request.routeOptions?.config?.secretParams));
  const queryAt = url.indexOf('?');
  const page = matchRoute(queryAt < 0 ? url : url.slice(0, queryAt));
  if (!page) return url;
  const screen: { pattern: string; secretParams?: readonly string[] } = ROUTES[page.id];
  return redactPath(url, screen.pattern, secretNames(screen.secretParams));
}

function secretNames(declared: readonly string[] | undefined): Set<string> {
  return new Set([ALWAYS_SECRET, ...(declared ?? [])]);
}

/** The parameters a pattern segment names: `:token` one, `:from-:to` two, plain text none. */
const paramsIn = (segment: string) => [...segment.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '');

/** A segment that matches exactly one segment of a URL: plain text, or one whole parameter (`:id`, `:id(^\\d+)`). */
const oneSegment = (segment: string) => /^:\w+(\(.*\))?$/.test(segment) || !/[:*]/.test(segment);

/**
 * Lines the URL's path segments up with the pattern's (a matched URL has one segment per pattern
 * segment, and perhaps a trailing slash) and redacts the secret ones. Should they not line up
 * (a pattern with a wildcard or two parameters in one segment), the pattern itself is shown with
 * its secrets redacted: less to read, nothing leaked.
 */
function redactPath(url: string, pattern: string, secret: Set<string>): string {
  const names = pattern.split('/');
  const isSecret = (name: string | undefined) => name !== undefined && paramsIn(name).some((param) => secret.has(param));
  if (!names.some(isSecret)) return url;
  const queryAt = url.indexOf('?');
  const segments = (queryAt < 0 ? url : url.slice(0, queryAt)).split('/');
  const query = queryAt < 0 ? '' : url.slice(queryAt);
  const linedUp =
    names.every(oneSegment) && segments.length >= names.length && segments.slice(names.length).every((extra) => extra === '');
  if (!linedUp) return pattern.replace(/:(\w+)/g, (param, name: string) => (secret.has(name) ? REDACTED : param));
  return segments.map((segment, i) => (isSecret(names[i]) ? REDACTED : segment)).join('/') + query;
}
