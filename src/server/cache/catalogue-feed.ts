import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { type Database, type Db, queryRows } from '../db/client.js';
import type { CatalogueChange } from '../domain/catalogue-changes.js';

/**
 * The catalogue's versions, as one instance knows them. Cached answers are stored under the
 * version they were computed at and served only while it is still current:
 * - `listing` changes when a list may change (which products, in what order, how many);
 * - `product(id)` changes when what is shown of that product may change (stock, price, rating).
 * So an order, which changes stock only, makes readers re-read the products it touched, and
 * keeps every listing page and search.
 */
export interface CatalogueState {
  listing: string;
  product(id: string): string;
  /** The shop's settings (cache/settings-cache.ts): changes with every settings write. */
  settings: string;
  /** Moves whenever any version does: equal before and after a read, no version moved meanwhile. */
  moves(): number;
}

export interface CatalogueVersion {
  /** The versions as of now: they include every change recorded before this call began. */
  current(): Promise<CatalogueState>;
  /** Records a committed change, for this instance and every other. */
  record(change: CatalogueChange): Promise<void>;
}

/** One line of the feed: what changed, as the writers record it. */
function encode(change: CatalogueChange): string {
  const parts = [...change.products];
  if (change.listing) parts.push('listing');
  if (change.everything) parts.push('everything');
  if (change.settings) parts.push('settings');
  return parts.join(',');
}

/**
 * This instance's copy of the versions: the number of the last change applied, and per product
 * the number of its last change. An epoch token (random per start and per reset) goes into every
 * version, so versions from before a reset (the feed lost, the instance too far behind) never
 * match again.
 */
class Versions {
  private epoch = randomUUID();
  private listingSeq = 0;
  private settingsSeq = 0;
  private readonly products = new Map<string, number>();
  private moved = 0;
  seq = 0;

  apply(seq: number, encoded: string): void {
    this.seq = seq;
    this.moved += 1;
    for (const part of encoded.split(',')) {
      if (part === 'everything') this.reset(seq);
      else if (part === 'listing') this.listingSeq = seq;
      else if (part === 'settings') this.settingsSeq = seq;
      else if (part) this.products.set(part, seq);
    }
  }

  /** Every version changes: nothing cached before is served again. */
  reset(seq: number): void {
    this.epoch = randomUUID();
    this.products.clear();
    this.listingSeq = seq;
    this.settingsSeq = seq;
    this.seq = seq;
    this.moved += 1;
  }

  state(): CatalogueState {
    // Read when asked, not copied: a version only moves forward, and an answer is stored under the
    // version read before it was computed, so reading a newer one can only cause a miss.
    return {
      listing: `${this.epoch}:${this.listingSeq}`,
      product: (id) => `${this.epoch}:${this.products.get(id) ?? 0}`,
      settings: `${this.epoch}:${this.settingsSeq}`,
      moves: () => this.moved,
    };
  }
}

/** PGlite: the database belongs to this one process, so its own record of changes is exact. */
export function localVersion(): CatalogueVersion {
  const versions = new Versions();
  return {
    current: async () => versions.state(),
    record: async (change) => {
      versions.apply(versions.seq + 1, encode(change));
    },
  };
}

/** What a shared feed answers: its epoch, its last number, and the changes after the one asked for. */
export interface FeedRead {
  epoch: string;
  head: number;
  changes: { seq: number; change: string }[];
}

/** Where several instances share the feed: a PostgreSQL table, or Redis. */
export interface SharedFeed {
  append(encoded: string): Promise<void>;
  /** At most FEED_READ_LIMIT changes after `after`, in order. */
  read(after: number): Promise<FeedRead>;
}

/** The changes an instance may be behind by before it resets instead of catching up. */
const FEED_READ_LIMIT = 1000;
/** The changes a feed keeps: an instance further behind resets. */
const FEED_KEEP = 4096;

/**
 * Several instances: each keeps its copy of the versions and brings it up to date from the shared
 * feed, reading only what changed since its last read. Reads are coalesced (see `coalesced`): one
 * round trip serves every request that arrived while the previous one was under way.
 */
export function sharedVersion(feed: SharedFeed, onError: (error: unknown, what: string) => void): CatalogueVersion {
  const versions = new Versions();
  let epoch: string | undefined;
  const sync = coalesced(async () => {
    const read = await feed.read(versions.seq);
    const contiguous = read.changes.every((c, i) => c.seq === versions.seq + i + 1);
    if (read.epoch !== epoch || read.head < versions.seq || read.changes.length !== read.head - versions.seq || !contiguous) {
      // A first read, a feed that started again, or more changes than the feed keeps: forget all.
      epoch = read.epoch;
      versions.reset(read.head);
    } else {
      for (const { seq, change } of read.changes) versions.apply(seq, change);
    }
    return versions.state();
  });
  return {
    current: sync,
    record: async (change) => {
      try {
        await feed.append(encode(change));
      } catch (error) {
        // Other instances cannot learn of it; this one at least must not serve what it has.
        versions.reset(versions.seq);
        onError(error, 'recording a catalogue change');
      }
    },
  };
}

/**
 * PostgreSQL without Redis. One statement numbers and appends a change (the head row's lock
 * orders concurrent writers for that one statement only, after their own transactions), and one
 * statement reads the head with the changes after a number: both consistent snapshots. Reads go
 * through `reader`, a connection of its own, so they never wait for, or take, a pool connection.
 */
export function postgresFeed(writer: Db, reader: Db): SharedFeed {
  return {
    append: async (encoded) => {
      const [row] = await queryRows<{ seq: string | number }>(
        writer,
        sql`WITH head AS (UPDATE catalog_change_head SET seq = seq + 1 WHERE id = 1 RETURNING seq)
            INSERT INTO catalog_changes (seq, change) SELECT seq, ${encoded} FROM head RETURNING seq`,
      );
      const seq = Number(row?.seq ?? 0);
      if (seq % 64 === 0) await queryRows(writer, sql`DELETE FROM catalog_changes WHERE seq <= ${seq - FEED_KEEP}`);
    },
    read: async (after) => {
      const rows = await queryRows<{ epoch: string; head: string | number; seq: string | number | null; change: string | null }>(
        reader,
        sql`SELECT h.epoch::text AS epoch, h.seq AS head, c.seq, c.change
              FROM catalog_change_head h
              LEFT JOIN LATERAL (
                SELECT seq, change FROM catalog_changes WHERE seq > ${after} AND seq <= h.seq ORDER BY seq LIMIT ${FEED_READ_LIMIT}
              ) c ON true
             WHERE h.id = 1`,
      );
      const first = rows[0];
      if (!first) throw new Error('the catalog_change_head row is missing');
      return {
        epoch: first.epoch,
        head: Number(first.head),
        changes: rows.flatMap((r) => (r.seq === null || r.change === null ? [] : [{ seq: Number(r.seq), change: r.change }])),
      };
    },
  };
}

const APPEND_SCRIPT = `
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], seq, seq .. '|' .. ARGV[1])
if seq % 64 == 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', seq - tonumber(ARGV[2])) end
return seq`;

const READ_SCRIPT = `
local epoch = redis.call('GET', KEYS[3])
if not epoch then
  epoch = ARGV[2]
  redis.call('SET', KEYS[3], epoch)
end
local head = tonumber(redis.call('GET', KEYS[1]) or '0')
local changes = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], head, 'LIMIT', 0, tonumber(ARGV[3]))
return {epoch, tostring(head), changes}`;

/**
 * Redis: a counter numbers the changes and a sorted set holds them, both written by one script
 * (atomic in Redis). The epoch key is made by the first reader after Redis lost its data, so a
 * restarted Redis, whose counter starts again, can never pass for the old feed.
 */
export function redisFeed(redis: Redis, prefix: string): SharedFeed {
  const keys = [`${prefix}catalog:seq`, `${prefix}catalog:changes`, `${prefix}catalog:epoch`];
  return {
    append: async (encoded) => {
      await redis.eval(APPEND_SCRIPT, 2, keys[0] ?? '', keys[1] ?? '', encoded, String(FEED_KEEP));
    },
    read: async (after) => {
      const result = (await redis.eval(READ_SCRIPT, 3, ...keys, String(after), randomUUID(), String(FEED_READ_LIMIT))) as [
        string,
        string,
        string[],
      ];
      const [epoch, head, members] = result;
      return {
        epoch,
        head: Number(head),
        changes: members.map((member) => {
          const bar = member.indexOf('|');
          return { seq: Number(member.slice(0, bar)), change: member.slice(bar + 1) };
        }),
      };
    },
  };
}

/**
 * Many requests at once need the versions. Each may only use a read that started after it
 * arrived (an earlier read could predate a write that answered before this request came), so a
 * request never joins a read under way: it waits for the next one, shared by every request that
 * arrived meanwhile. Under load that is one round trip per round trip's worth of requests, and
 * never two reads at once.
 */
export function coalesced<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const current: Promise<T> = read().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  };
  const settled = () => undefined;
  return () => {
    if (!running) return start();
    next ??= running.then(settled, settled).then(() => {
      next = undefined;
      return start();
    });
    return next;
  };
}

/** Where the catalogue cache learns of changes made by any instance of the shop. */
export function catalogueVersionFor(
  database: Database,
  redis: Redis | undefined,
  prefix: string,
  onError: (error: unknown, what: string) => void,
): CatalogueVersion {
  if (database.kind === 'pglite') return localVersion();
  return sharedVersion(redis ? redisFeed(redis, prefix) : postgresFeed(database.db, database.sideDb), onError);
}
