import { eq, lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import { type Db, queryRows } from '../../db/client.js';
import { rateLimits } from '../../db/schema.js';

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

async function databasePeek(db: Db, key: string): Promise<number> {
  const rows = await queryRows<{ hits: number }>(db, sql`SELECT hits FROM ${rateLimits} WHERE key = ${key} AND reset_at > now()`);
  return Number(rows[0]?.hits ?? 0);
}

async function databaseDecr(db: Db, key: string): Promise<void> {
  await db.execute(sql`UPDATE ${rateLimits} SET hits = hits - 1 WHERE key = ${key} AND hits > 0 AND reset_at > now()`);
}

async function databaseReset(db: Db, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

const REDIS_INCR = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {current, redis.call('PTTL', KEYS[1])}`;

// DECR keeps the key's expiry; a missing key is not created (it would never expire).
const REDIS_DECR = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

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

  peek(key: string): number {
    const window = this.windows.get(key);
    return window && window.resetAt > Date.now() ? window.hits : 0;
  }

  decr(key: string): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > Date.now() && window.hits > 0) window.hits -= 1;
  }

  reset(key: string): void {
    this.windows.delete(key);
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

/**
 * Windowed counters in Redis when the shop has it, else the database; when the one in use is
 * unreachable they are kept in the database (or, with that down too, in this process). A limit
 * built on them never fails open: sign-in attempts stay limited through an outage.
 */
export class AttemptCounters {
  private readonly memory = new MemoryCounters();
  private readonly redisOutage: Outage;
  private readonly databaseOutage: Outage;

  constructor(
    private readonly db: Db,
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
    log: FastifyBaseLogger,
  ) {
    this.redisOutage = new Outage(log, 'Redis', 'the database');
    this.databaseOutage = new Outage(log, 'the database', 'this process');
  }

  /** Counts one more in `key`'s window (opening one of `timeWindow` ms if none is open). */
  incr(key: string, timeWindow: number): Promise<Count> {
    return this.use(
      (redis, k) => redisIncr(redis, k, timeWindow),
      (k) => databaseIncr(this.db, k, timeWindow),
      (k) => this.memory.incr(k, timeWindow),
      key,
    );
  }

  /** How many `key`'s open window holds, 0 when none is open. */
  peek(key: string): Promise<number> {
    return this.use(
      async (redis, k) => Number((await redis.get(k)) ?? 0),
      (k) => databasePeek(this.db, k),
      (k) => this.memory.peek(k),
      key,
    );
  }

  /** Takes one back from `key`'s open window (an attempt that turned out not to count); none open, nothing. */
  async decr(key: string): Promise<void> {
    await this.use(
      async (redis, k) => {
        await redis.eval(REDIS_DECR, 1, k);
      },
      (k) => databaseDecr(this.db, k),
      (k) => this.memory.decr(k),
      key,
    );
  }

  /** Closes `key`'s window. */
  async reset(key: string): Promise<void> {
    await this.use(
      async (redis, k) => {
        await redis.del(k);
      },
      (k) => databaseReset(this.db, k),
      (k) => this.memory.reset(k),
      key,
    );
  }

  private async use<T>(
    inRedis: (redis: Redis, key: string) => Promise<T>,
    inDatabase: (key: string) => Promise<T>,
    inMemory: (key: string) => T,
    key: string,
  ): Promise<T> {
    const { redis } = this;
    if (redis) {
      // Not connected: no wait for a timeout, straight to the database.
      if (redis.status === 'ready') {
        try {
          const result = await inRedis(redis, `${this.prefix}${key}`);
          this.redisOutage.end();
          return result;
        } catch (error) {
          this.redisOutage.begin(error);
        }
      } else {
        this.redisOutage.begin();
      }
    }
    try {
      const result = await inDatabase(`rl:${this.prefix}${key}`);
      this.databaseOutage.end();
      return result;
    } catch (error) {
      this.databaseOutage.begin(error);
      return inMemory(`${this.prefix}${key}`);
    }
  }
}

/**
 * Who a limit counts: an IPv4 address as it is, an IPv6 address by its /64. One subscriber, home
 * or phone is handed a whole /64 and can pick any of its 2^64 addresses, so counting each
 * address on its own would give an attacker a fresh limit per request.
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  // process() also turns an IPv4-mapped IPv6 address (::ffff:1.2.3.4, a dual-stack socket's) back into IPv4.
  const address = ipaddr.process(ip);
  if (address instanceof ipaddr.IPv4) return address.toString();
  return `${new ipaddr.IPv6([...address.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
