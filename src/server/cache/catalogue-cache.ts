import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CatalogueChange, CatalogueChanges } from '../domain/catalogue-changes.js';
import { type Bounded, bounded } from './bounded.js';
import type { CatalogueState, CatalogueVersion } from './catalogue-feed.js';

/**
 * The catalogue's answers (listing pages, searches, top products, product details) are read far
 * more often than the catalogue changes, so each instance keeps them in memory.
 *
 * Everything cached is stored under the version it was computed at (see catalogue-feed.ts), read
 * before it was computed, and served only while that is still the current version. Every request
 * reads the current versions; every domain write that changes an answer records what it changed
 * after its transaction commits and before it returns (see domain/catalogue-changes.ts). So a
 * request that starts after a write has answered can never be served from before it, on this
 * instance or any other: a stale price or stock count is impossible, not just unlikely. A request
 * that is refused or fails commits nothing and changes no version. If the versions cannot be
 * read, nothing is served from the cache or kept in it.
 */
export interface CachedAnswer {
  /** The JSON text of the answer. */
  body: string;
  /** A strong validator of the body, for If-None-Match. */
  etag: string;
}

interface Entry {
  version: string;
  value: unknown;
  size: number;
}

/** At most this much per instance (serialised JSON, roughly); the least recently used go first. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

export interface CatalogueCacheOptions {
  version: CatalogueVersion;
  onError: (error: unknown, what: string) => void;
  /** How many misses may be computed at once: the share of the database the catalogue may take. */
  computeSlots: number;
  maxBytes?: number;
}

export class CatalogueCache implements CatalogueChanges {
  private readonly entries: LRUCache<string, Entry>;
  /** Misses being computed, by version and key: later requests for the same one wait for it. */
  private readonly computing = new Map<string, Promise<unknown>>();
  private readonly version: CatalogueVersion;
  private readonly onError: (error: unknown, what: string) => void;
  /** Runs a database read within the catalogue's share of the connections. */
  readonly slot: Bounded;

  constructor(options: CatalogueCacheOptions) {
    this.version = options.version;
    this.onError = options.onError;
    this.slot = bounded(options.computeSlots);
    this.entries = new LRUCache<string, Entry>({
      maxSize: options.maxBytes ?? DEFAULT_MAX_BYTES,
      sizeCalculation: (entry) => entry.size + 200,
    });
  }

  /** The current versions; undefined when they cannot be read (then the cache must not be used). */
  async state(): Promise<CatalogueState | undefined> {
    try {
      return await this.version.current();
    } catch (error) {
      this.onError(error, 'reading the catalogue version');
      return undefined;
    }
  }

  /** What is kept under `key` at `version`, if anything. */
  peek<T>(key: string, version: string): T | undefined {
    const entry = this.entries.get(key);
    return entry?.version === version ? (entry.value as T) : undefined;
  }

  /** Keeps `value` under `key` at `version`: a version read before the value was computed. */
  set<T>(key: string, version: string, value: T, size: number): void {
    this.entries.set(key, { version, value, size });
  }

  /**
   * The value under `key` at `version`, or computed and kept. A miss is computed once per key and
   * version, however many requests want it at once, within the catalogue's share of connections.
   */
  get<T>(key: string, version: string, compute: () => Promise<T>, size: (value: T) => number): Promise<T> {
    const hit = this.peek<T>(key, version);
    if (hit !== undefined) return Promise.resolve(hit);
    const flight = `${version}\u0000${key}`;
    const running = this.computing.get(flight);
    if (running) return running as Promise<T>;
    const computed = this.slot(async () => {
      const value = await compute();
      this.set(key, version, value, size(value));
      return value;
    }).finally(() => this.computing.delete(flight));
    this.computing.set(flight, computed);
    return computed;
  }

  async committed(change: CatalogueChange): Promise<void> {
    try {
      await this.version.record(change);
    } catch (error) {
      this.onError(error, 'recording a catalogue change');
    }
  }
}

export function toAnswer(value: unknown): CachedAnswer {
  return answerOf(JSON.stringify(value));
}

export function answerOf(body: string): CachedAnswer {
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}
