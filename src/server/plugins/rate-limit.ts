import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { type Db, queryRows } from '../db/client.js';
import { rateLimits } from '../db/schema.js';
import { AppError } from '../errors.js';

type ChildOptions = Parameters<FastifyRateLimitStore['child']>[0];
type Callback = Parameters<FastifyRateLimitStore['incr']>[1];
interface Count {
  current: number;
  ttl: number;
}

/** One upsert opens or continues a fixed window in the shop's own database, shared by every instance. */
async function databaseIncr(db: Db, key: string, timeWindow: number): Promise<Count> {
  const rows = await queryRows<{ hits: number; ttl: number }>(
    db,
    sql`
    INSERT INTO ${rateLimits} (key, hits, reset_at)
    VALUES (${key}, 1, now() + ${timeWindow} * interval '1 millisecond')
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN ${rateLimits.resetAt} <= now() THEN 1 ELSE ${rateLimits.hits} + 1 END,
      reset_at = CASE WHEN ${rateLimits.resetAt} <= now() THEN excluded.reset_at ELSE ${rateLimits.resetAt} END
    RETURNING hits, greatest(0, ceil(extract(epoch FROM (reset_at - now())) * 1000))::int AS ttl`,
  );
  const row = rows[0];
  // Now and then, sweep windows that have closed.
  if (Math.random() < 0.01)
    db.delete(rateLimits)
      .where(lt(rateLimits.resetAt, new Date()))
      .catch(() => {});
  return { current: Number(row?.hits ?? 1), ttl: Number(row?.ttl ?? timeWindow) };
}

const REDIS_INCR = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {current, redis.call('PTTL', KEYS[1])}`;

async function redisIncr(redis: Redis, key: string, timeWindow: number): Promise<Count> {
  const [current, ttl] = (await redis.eval(REDIS_INCR, 1, key, timeWindow)) as [number, number];
  return { current: Number(current), ttl: Math.max(0, Number(ttl)) };
}

/**
 * The last resort, when neither Redis nor the database answers: this process's own counters.
 * Bounded, so that a flood of addresses during an outage cannot grow memory without limit.
 */
class MemoryCounters {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  constructor(private readonly limit = 50_000) {}

  incr(key: string, timeWindow: number): Count {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= this.limit) this.sweep(now);
      window = { hits: 0, resetAt: now + timeWindow };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return { current: window.hits, ttl: window.resetAt - now };
  }

  private sweep(now: number) {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full: drop the oldest windows (Map keeps insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.limit) break;
      this.windows.delete(key);
    }
  }
}

/** Says once when a counter store becomes unreachable, and once when it is back. */
class Outage {
  private down = false;
  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly what: string,
    private readonly instead: string,
  ) {}
  begin(error?: unknown) {
    if (this.down) return;
    this.down = true;
    this.log.warn({ err: error }, `rate limits: ${this.what} unreachable; counting in ${this.instead} until it is back`);
  }
  end() {
    if (!this.down) return;
    this.down = false;
    this.log.info(`rate limits: ${this.what} reachable again`);
  }
}

interface Counters {
  db: Db;
  redis: Redis | undefined;
  memory: MemoryCounters;
  redisOutage: Outage;
  databaseOutage: Outage;
}

/**
 * @fastify/rate-limit store: Redis when the shop has it, else the database; when the one in use
 * is unreachable the limit still holds, counted in the database (or, with that down too, in this
 * process). A limit never fails open: sign-in attempts stay limited through an outage.
 */
function sharedStore(counters: Counters, prefix: string): FastifyRateLimitStoreCtor {
  const { db, redis, memory, redisOutage, databaseOutage } = counters;

  async function count(key: string, timeWindow: number): Promise<Count> {
    if (redis) {
      // Not connected: no wait for a timeout, straight to the database.
      if (redis.status === 'ready') {
        try {
          const counted = await redisIncr(redis, `${prefix}${key}`, timeWindow);
          redisOutage.end();
          return counted;
        } catch (error) {
          redisOutage.begin(error);
        }
      } else {
        redisOutage.begin();
      }
    }
    try {
      const counted = await databaseIncr(db, `rl:${prefix}${key}`, timeWindow);
      databaseOutage.end();
      return counted;
    } catch (error) {
      databaseOutage.begin(error);
      return memory.incr(`${prefix}${key}`, timeWindow);
    }
  }

  return class SharedRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number) {
      count(key, timeWindow).then(
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
 * otherwise in the database; either way every instance counts into the same window.
 */
export default fp(
  async function rateLimiting(app: FastifyInstance, opts: { db: Db; redis?: Redis | undefined; redisKeyPrefix: string }) {
    const counters: Counters = {
      db: opts.db,
      redis: opts.redis,
      memory: new MemoryCounters(),
      redisOutage: new Outage(app.log, 'Redis', 'the database'),
      databaseOutage: new Outage(app.log, 'the database', 'this process'),
    };
    await app.register(rateLimit, {
      global: false,
      store: sharedStore(counters, opts.redis ? `${opts.redisKeyPrefix}rl:` : ''),
      // Every store failure is handled above, down to the process's own counters.
      skipOnError: false,
      errorResponseBuilder: (_request, context) =>
        new AppError(429, `Too many attempts. Please wait ${context.after} and try again.`),
    });
  },
  { name: 'rate-limiting' },
);
