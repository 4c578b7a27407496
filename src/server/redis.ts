import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The connection to Redis (REDIS_URL), for what several instances share and must read fast: the
 * rate-limit counters and the catalogue cache's version. Redis is optional: without it the same
 * state lives in the database.
 */
export async function connectRedis(url: string, log: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // A request waiting on Redis fails fast rather than queueing while Redis is away: rate limits
    // then let it through and the catalogue cache computes afresh (both by design).
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 5_000,
  });
  let reported = false;
  redis.on('error', (error: Error) => {
    // ioredis reconnects by itself; say so once per outage rather than once per retry.
    if (!reported) log.warn({ err: error }, 'Redis unreachable; retrying');
    reported = true;
  });
  redis.on('ready', () => {
    if (reported) log.info('Redis reachable again');
    reported = false;
  });
  await redis.connect();
  return redis;
}
