import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { type Database, type Db, queryRows } from '../db/client.js';
import type { CatalogChange, CatalogChanges } from '../domain/catalog-changes.js';
import { bounded } from './bounded.js';

/**
 * The catalogue's answers (listing pages, searches, top products, product details) are read far
 * more often than the catalogue changes, so each instance keeps the serialised answers in memory.
 *
 * An answer is cached under the catalogue version current when it was computed, and served only
 * while that is still the current version. Every request reads the current version; every domain
 * write that changes an answer (a product edited, an order taking stock, a review) sets a new one
 * after its transaction commits and before it returns (see domain/catalog-changes.ts). A request
 * that is refused or fails commits nothing and so changes no version. So a request that starts after a write has
 * answered can never be served from before it, on this instance or any other: a stale price or
 * stock count is impossible, not just unlikely. If the version cannot be read, nothing is cached.
 */
export interface CatalogVersion {
  /** The current version; it changes on every bump and never comes back. */
  current(): Promise<string>;
  /** Starts a new version: call after a catalogue write has committed, before answering. */
  bump(): Promise<void>;
}

/** PGlite: the database belongs to this one process, so the process's own counter is exact. */
export function localVersion(): CatalogVersion {
  let version = 0;
  return {
    current: async () => String(version),
    bump: async () => {
      version += 1;
    },
  };
}

/**
 * Several instances on PostgreSQL without Redis: a sequence in the database, which no transaction
 * ever waits on (nextval takes no lock), read with one tiny query per request.
 */
export function postgresVersion(db: Db): CatalogVersion {
  return {
    current: async () => {
      const [row] = await queryRows<{ last_value: string | number }>(db, sql`SELECT last_value FROM catalog_version`);
      if (row === undefined) throw new Error('the catalog_version sequence is missing');
      return String(row.last_value);
    },
    bump: async () => {
      await queryRows(db, sql`SELECT nextval('catalog_version')`);
    },
  };
}

/**
 * Several instances with Redis: the version is a random token under one key. A token (not a
 * counter) so that a Redis restart, which loses the key, can never bring back a version that old
 * cached answers were stored under.
 */
export function redisVersion(redis: Redis, key: string): CatalogVersion {
  return {
    current: async () => {
      const version = await redis.get(key);
      if (version) return version;
      const fresh = randomUUID();
      // Two instances may race to create it: the first one wins and both use its token.
      await redis.set(key, fresh, 'NX');
      return (await redis.get(key)) ?? fresh;
    },
    bump: async () => {
      await redis.set(key, randomUUID());
    },
  };
}

/**
 * Many requests at once need the version. Each may only use a read that started after it
 * arrived (an earlier read could predate a write that answered before this request came), so a
 * request never joins a read under way: it waits for the next one, shared by every request that
 * arrived meanwhile. Under load that is one round trip to Redis or PostgreSQL per round trip's
 * worth of requests, instead of one per request.
 */
export function coalesced(source: CatalogVersion): CatalogVersion {
  let running: Promise<string> | undefined;
  let next: Promise<string> | undefined;
  const start = (): Promise<string> => {
    const read: Promise<string> = source.current().finally(() => {
      if (running === read) running = undefined;
    });
    running = read;
    return read;
  };
  const settled = () => undefined;
  return {
    current() {
      if (!running) return start();
      next ??= running.then(settled, settled).then(() => {
        next = undefined;
        return start();
      });
      return next;
    },
    bump: () => source.bump(),
  };
}

/** Where the catalogue cache learns of changes made by any instance of the shop. */
export function catalogVersionFor(database: Database, redis: Redis | undefined, prefix: string): CatalogVersion {
  if (database.kind === 'pglite') return localVersion();
  return coalesced(redis ? redisVersion(redis, `${prefix}catalog-version`) : postgresVersion(database.sideDb));
}

export interface CachedAnswer {
  /** The JSON text of the answer. */
  body: string;
  /** A strong validator of the body, for If-None-Match. */
  etag: string;
}

interface Entry extends CachedAnswer {
  version: string;
}

/** At most this much serialised JSON per instance; the least recently used answers go first. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

export interface CatalogCacheOptions {
  version: CatalogVersion;
  onError: (error: unknown, what: string) => void;
  /** How many misses may be computed at once: the share of the database the catalogue may take. */
  computeSlots: number;
  maxBytes?: number;
}

export class CatalogCache implements CatalogChanges {
  private readonly entries: LRUCache<string, Entry>;

  /** Misses being computed, by version and key: later requests for the same one wait for it. */
  private readonly computing = new Map<string, Promise<CachedAnswer>>();
  private readonly version: CatalogVersion;
  private readonly onError: (error: unknown, what: string) => void;
  private readonly slot: <T>(task: () => Promise<T>) => Promise<T>;

  constructor(options: CatalogCacheOptions) {
    this.version = options.version;
    this.onError = options.onError;
    this.slot = bounded(options.computeSlots);
    this.entries = new LRUCache<string, Entry>({
      maxSize: options.maxBytes ?? DEFAULT_MAX_BYTES,
      sizeCalculation: (entry) => entry.body.length + 200,
    });
  }

  /**
   * The answer for `key`, from the cache when it is of the current version, else computed (and
   * kept). A miss is computed once per key and version, however many requests want it at once.
   */
  async get(key: string, compute: () => Promise<unknown>): Promise<CachedAnswer> {
    let version: string | undefined;
    try {
      version = await this.version.current();
    } catch (error) {
      // Without the current version a cached answer might be stale: compute, and keep nothing.
      this.onError(error, 'reading the catalogue version');
    }
    if (version === undefined) return this.slot(async () => toAnswer(await compute()));
    const hit = this.entries.get(key);
    if (hit?.version === version) return hit;
    const flight = `${version}\u0000${key}`;
    const running = this.computing.get(flight);
    if (running) return running;
    const computed = this.slot(async () => {
      const answer = toAnswer(await compute());
      this.entries.set(key, { ...answer, version });
      return answer;
    }).finally(() => this.computing.delete(flight));
    this.computing.set(flight, computed);
    return computed;
  }

  async committed(_change: CatalogChange): Promise<void> {
    await this.changed();
  }

  /** Marks every cached answer, here and on every other instance, as out of date. */
  async changed(): Promise<void> {
    // Whatever happens below, this instance must not serve what it has.
    this.entries.clear();
    try {
      await this.version.bump();
    } catch (error) {
      this.onError(error, 'starting a new catalogue version');
    }
  }
}

function toAnswer(value: unknown): CachedAnswer {
  const body = JSON.stringify(value);
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}
