import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { Db } from '../../db/client.js';
import { AppError } from '../../errors.js';
import { AttemptCounters, clientKey } from '../shop/attempt-counters.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate limits' counters, for limits that count more selectively than per request. */
    attemptCounters: AttemptCounters;
  }
}

type ChildOptions = Parameters<FastifyRateLimitStore['child']>[0];
type Callback = Parameters<FastifyRateLimitStore['incr']>[1];

/** @fastify/rate-limit store over the shop's counters, each route with its own keys. */
function sharedStore(counters: AttemptCounters, prefix: string): FastifyRateLimitStoreCtor {
  return class SharedRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number) {
      counters.incr(`${prefix}${key}`, timeWindow).then(
        (counted) => callback(null, counted),
        (error: Error) => callback(error),
      );
    }

    child(routeOptions: ChildOptions): FastifyRateLimitStore {
      // At run time the plugin passes the route as `routeInfo` (its typings say otherwise);
      // method and URL give each route its own counters, the same on every instance.
      const { method, url } = (routeOptions as unknown as { routeInfo: { method?: unknown; url?: string } }).routeInfo;
      const Child = sharedStore(counters, `${prefix}${String(method)}${url ?? ''}:`);
      return new Child(routeOptions);
    }
  };
}

/**
 * Per-route limits (login, registration, password reset, payment prompts) answer 429 with a msg.
 * Counters live in Redis when the shop has it (one round trip, no database write per attempt),
 * otherwise in the database; either way every instance counts into the same window
 * (shop/attempt-counters.ts).
 */
export default fp(
  async function rateLimiting(app: FastifyInstance, opts: { db: Db; redis?: Redis | undefined; redisKeyPrefix: string }) {
    const counters = new AttemptCounters(opts.db, opts.redis, opts.redis ? `${opts.redisKeyPrefix}rl:` : '', app.log);
    app.decorate('attemptCounters', counters);
    await app.register(rateLimit, {
      global: false,
      store: sharedStore(counters, ''),
      keyGenerator: (request) => clientKey(request.ip),
      // AttemptCounters handles every store failure, down to the process's own counters.
      skipOnError: false,
      errorResponseBuilder: (_request, context) =>
        new AppError(429, `Too many attempts. Please wait ${context.after} and try again.`),
    });
  },
  { name: 'rate-limiting' },
);
