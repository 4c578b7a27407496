import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { lt, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { type Db, queryRows } from '../db/client.js';
import { rateLimits } from '../db/schema.js';
import { AppError } from '../errors.js';

type ChildOptions = Parameters<FastifyRateLimitStore['child']>[0];

/**
 * @fastify/rate-limit store on the shop's own database, so a limit counts across every instance
 * with nothing more to run. One upsert per counted request opens or continues a fixed window.
 */
function databaseStore(db: Db, prefix = 'rl:'): FastifyRateLimitStoreCtor {
  return class DatabaseRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: Parameters<FastifyRateLimitStore['incr']>[1], timeWindow: number) {
      const fullKey = `${prefix}${key}`;
      queryRows<{ hits: number; ttl: number }>(
        db,
        sql`
        INSERT INTO ${rateLimits} (key, hits, reset_at)
        VALUES (${fullKey}, 1, now() + ${timeWindow} * interval '1 millisecond')
        ON CONFLICT (key) DO UPDATE SET
          hits = CASE WHEN ${rateLimits.resetAt} <= now() THEN 1 ELSE ${rateLimits.hits} + 1 END,
          reset_at = CASE WHEN ${rateLimits.resetAt} <= now() THEN excluded.reset_at ELSE ${rateLimits.resetAt} END
        RETURNING hits, greatest(0, ceil(extract(epoch FROM (reset_at - now())) * 1000))::int AS ttl`,
      )
        .then((rows) => {
          const row = rows[0];
          callback(null, { current: Number(row?.hits ?? 1), ttl: Number(row?.ttl ?? timeWindow) });
          // Now and then, sweep windows that have closed.
          if (Math.random() < 0.01)
            db.delete(rateLimits)
              .where(lt(rateLimits.resetAt, new Date()))
              .catch(() => {});
        })
        .catch((error: Error) => callback(error));
    }

    child(routeOptions: ChildOptions): FastifyRateLimitStore {
      // At run time the plugin passes the route as `routeInfo` (its typings say otherwise);
      // method and URL give each route its own counters, the same on every instance.
      const { method, url } = (routeOptions as unknown as { routeInfo: { method?: unknown; url?: string } }).routeInfo;
      const Child = databaseStore(db, `${prefix}${String(method)}${url ?? ''}:`);
      return new Child(routeOptions);
    }
  };
}

/**
 * Per-route limits (login, registration, password reset, payment prompts) answer 429 with a msg.
 * Counters live in Redis when the shop has it (one round trip, no database write per attempt),
 * otherwise in the database; either way every instance counts into the same window.
 */
export default fp(
  async function rateLimiting(app: FastifyInstance, opts: { db: Db; redis?: Redis | undefined; redisKeyPrefix: string }) {
    const store = opts.redis ? { redis: opts.redis, nameSpace: `${opts.redisKeyPrefix}rl:` } : { store: databaseStore(opts.db) };
    await app.register(rateLimit, {
      global: false,
      ...store,
      // A limit is about abuse, not correctness: if the counter store fails, let the request through.
      skipOnError: true,
      errorResponseBuilder: (_request, context) =>
        new AppError(429, `Too many attempts. Please wait ${context.after} and try again.`),
    });
  },
  { name: 'rate-limiting' },
);
