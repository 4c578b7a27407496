import { describe, expect, it } from 'vitest';
import { bounded } from './bounded.js';
import { CatalogueCache } from './catalogue-cache.js';
import {
  type CatalogueVersion,
  coalesced,
  type FeedRead,
  localVersion,
  type SharedFeed,
  sharedVersion,
} from './catalogue-feed.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Reads that finish when the test says, each answering the value at its start. */
function controlledReads() {
  let value = 0;
  const pending: Array<() => void> = [];
  const read = () => {
    const seen = value;
    return new Promise<number>((resolve) => pending.push(() => resolve(seen)));
  };
  const finishReads = async () => {
    for (const finish of pending.splice(0)) finish();
    await settle();
  };
  return { read, pending, finishReads, change: () => (value += 1) };
}

describe('coalesced catalogue version reads', () => {
  it('never answers a request with a read that started before it arrived', async () => {
    const { read, pending, finishReads, change } = controlledReads();
    const current = coalesced(read);
    const early = current();
    expect(pending.length).toBe(1);
    // A write finishes while that read is under way; a request arriving now must see it.
    change();
    const late = current();
    await finishReads();
    expect(await early).toBe(0);
    // The late request waited for a second read, started after the first one ended.
    expect(pending.length).toBe(1);
    await finishReads();
    expect(await late).toBe(1);
  });

  it('makes the requests that arrive during one read share the next', async () => {
    const { read, pending, finishReads } = controlledReads();
    const current = coalesced(read);
    const first = current();
    const waiting = Array.from({ length: 50 }, () => current());
    expect(pending.length).toBe(1);
    await finishReads();
    await first;
    expect(pending.length).toBe(1);
    await finishReads();
    expect(new Set(await Promise.all(waiting))).toEqual(new Set([0]));
    expect(pending.length).toBe(0);
  });

  it('passes a failed read on to the requests that waited for it, and recovers', async () => {
    let fail = true;
    const current = coalesced(async () => {
      if (fail) throw new Error('Redis is away');
      return 7;
    });
    await expect(current()).rejects.toThrow('Redis is away');
    fail = false;
    expect(await current()).toBe(7);
  });
});

/** A shared feed in memory, as PostgreSQL's table or Redis keep it, that can lose its data. */
function memoryFeed() {
  let epoch = 'e1';
  let changes: { seq: number; change: string }[] = [];
  let head = 0;
  const feed: SharedFeed = {
    append: async (change) => {
      head += 1;
      changes.push({ seq: head, change });
    },
    read: async (after): Promise<FeedRead> => ({ epoch, head, changes: changes.filter((c) => c.seq > after).slice(0, 1000) }),
  };
  return {
    feed,
    /** Redis restarted: the counter starts again under a new epoch. */
    lose: () => {
      epoch = 'e2';
      changes = [];
      head = 0;
    },
    /** Only the newest `keep` changes stay. */
    trim: (keep: number) => {
      changes = changes.slice(-keep);
    },
  };
}

describe('catalogue versions', () => {
  const never = (error: unknown) => {
    throw error;
  };

  it.each([
    ['in one process (PGlite)', () => localVersion()],
    ['shared through a feed', () => sharedVersion(memoryFeed().feed, never)],
  ])('%s: an order moves its products only; an edit moves the product and the lists', async (_title, make) => {
    const version: CatalogueVersion = make();
    const before = await version.current();
    const [listing, a, b] = [before.listing, before.product('a'), before.product('b')];
    await version.record({ products: ['a'], listing: false });
    const afterOrder = await version.current();
    expect(afterOrder.listing).toBe(listing);
    expect(afterOrder.product('a')).not.toBe(a);
    expect(afterOrder.product('b')).toBe(b);
    const a2 = afterOrder.product('a');
    const untouched = afterOrder.product('never-changed');
    await version.record({ products: ['b'], listing: true });
    const afterEdit = await version.current();
    expect(afterEdit.listing).not.toBe(listing);
    expect(afterEdit.product('a')).toBe(a2);
    expect(afterEdit.product('b')).not.toBe(b);
    await version.record({ products: [], listing: true, everything: true });
    const afterImport = await version.current();
    expect(afterImport.product('a')).not.toBe(a2);
    expect(afterImport.product('never-changed')).not.toBe(untouched);
  });

  it('sees what another instance recorded, and forgets everything when the feed was lost or cut', async () => {
    const shared = memoryFeed();
    const here = sharedVersion(shared.feed, never);
    const there = sharedVersion(shared.feed, never);
    const first = await here.current();
    const [listing, c] = [first.listing, first.product('c')];
    await there.record({ products: ['c'], listing: false });
    const seen = await here.current();
    expect(seen.product('c')).not.toBe(c);
    expect(seen.listing).toBe(listing);

    // Redis lost its data and the counter passed this instance's number again: a new epoch.
    const untouched = seen.product('d');
    shared.lose();
    for (let i = 0; i < 5; i += 1) await there.record({ products: ['x'], listing: false });
    expect((await here.current()).product('d')).not.toBe(untouched);

    // More changes than the feed keeps since this instance last read: it cannot know which.
    const before = (await here.current()).product('e');
    for (let i = 0; i < 10; i += 1) await there.record({ products: ['y'], listing: false });
    shared.trim(3);
    expect((await here.current()).product('e')).not.toBe(before);
  });

  it.each([
    ['in one process (PGlite)', () => localVersion()],
    ['shared through a feed', () => sharedVersion(memoryFeed().feed, never)],
  ])('%s: a settings change moves the settings version only, and an import moves it too', async (_title, make) => {
    const version: CatalogueVersion = make();
    const before = await version.current();
    const [listing, a, settings] = [before.listing, before.product('a'), before.settings];
    await version.record({ products: ['a'], listing: true });
    expect((await version.current()).settings).toBe(settings);
    const afterEdit = await version.current();
    await version.record({ products: [], listing: false, settings: true });
    const afterSettings = await version.current();
    expect(afterSettings.settings).not.toBe(settings);
    expect(afterSettings.listing).toBe(afterEdit.listing);
    expect(afterSettings.product('a')).toBe(afterEdit.product('a'));
    expect(afterEdit.listing).not.toBe(listing);
    expect(afterEdit.product('a')).not.toBe(a);
    await version.record({ products: [], listing: true, everything: true });
    expect((await version.current()).settings).not.toBe(afterSettings.settings);
  });

  it('sees a settings change another instance recorded', async () => {
    const shared = memoryFeed();
    const here = sharedVersion(shared.feed, never);
    const there = sharedVersion(shared.feed, never);
    const settings = (await here.current()).settings;
    await there.record({ products: [], listing: false, settings: true });
    expect((await here.current()).settings).not.toBe(settings);
  });

  it('a change that could not be recorded still keeps this instance from serving what it has', async () => {
    const feed: SharedFeed = {
      append: async () => {
        throw new Error('Redis is away');
      },
      read: async () => ({ epoch: 'e', head: 0, changes: [] }),
    };
    const errors: string[] = [];
    const version = sharedVersion(feed, (_error, what) => errors.push(what));
    const before = (await version.current()).product('a');
    await version.record({ products: ['b'], listing: false });
    expect((await version.current()).product('a')).not.toBe(before);
    expect(errors).toEqual(['recording a catalogue change']);
  });
});

/** A computation that finishes when the test says, counting how often it was started. */
function controlledCompute<T>(value: T) {
  let started = 0;
  const finishers: (() => void)[] = [];
  const compute = () => {
    started += 1;
    return new Promise<T>((resolve) => finishers.push(() => resolve(value)));
  };
  return {
    compute,
    started: () => started,
    finishAll: () => {
      for (const finish of finishers.splice(0)) finish();
    },
  };
}

describe('single-flight misses', () => {
  const newCache = (computeSlots = 4) =>
    new CatalogueCache({
      version: localVersion(),
      computeSlots,
      onError: (error) => {
        throw error;
      },
    });
  const size = () => 1;

  it('computes a miss once, however many requests want it at once, and all get its answer', async () => {
    const cache = newCache();
    const search = controlledCompute('3 hits');
    const answers = Array.from({ length: 100 }, () => cache.get('page:1:samsng', 'v1', search.compute, size));
    await settle();
    expect(search.started()).toBe(1);
    search.finishAll();
    expect(new Set(await Promise.all(answers))).toEqual(new Set(['3 hits']));
    // And once computed, it is a hit.
    expect(await cache.get('page:1:samsng', 'v1', search.compute, size)).toBe('3 hits');
    expect(search.started()).toBe(1);
  });

  it('does not hand a request that read a newer version the computation of an older one', async () => {
    const cache = newCache();
    const before = controlledCompute('old');
    const after = controlledCompute('new');
    const early = cache.get('top', 'v1', before.compute, size);
    const late = cache.get('top', 'v2', after.compute, size);
    await settle();
    expect([before.started(), after.started()]).toEqual([1, 1]);
    before.finishAll();
    after.finishAll();
    expect([await early, await late]).toEqual(['old', 'new']);
  });

  it('passes a failed computation to the requests that waited for it, and tries again on the next', async () => {
    const cache = newCache();
    let calls = 0;
    const failing = async (): Promise<string> => {
      calls += 1;
      await settle();
      throw new Error('statement timeout');
    };
    const results = await Promise.allSettled([cache.get('k', 'v', failing, size), cache.get('k', 'v', failing, size)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(await cache.get('k', 'v', async () => 'fine', size)).toBe('fine');
  });

  it('computes at most computeSlots different misses at once; the others wait their turn', async () => {
    const cache = newCache(2);
    const searches = Array.from({ length: 6 }, (_, i) => controlledCompute(i));
    const answers = searches.map((search, i) => cache.get(`page:1:typo${i}`, 'v', search.compute, size));
    await settle();
    expect(searches.map((s) => s.started())).toEqual([1, 1, 0, 0, 0, 0]);
    searches[0]?.finishAll();
    await settle();
    expect(searches.map((s) => s.started())).toEqual([1, 1, 1, 0, 0, 0]);
    for (const search of searches) {
      search.finishAll();
      await settle();
    }
    expect(await Promise.all(answers)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('bounded', () => {
  it('never runs more than its limit at once, and runs every task', async () => {
    const limit = bounded(3);
    let running = 0;
    let most = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        limit(async () => {
          running += 1;
          most = Math.max(most, running);
          await settle();
          running -= 1;
          return i;
        }),
      ),
    );
    expect(most).toBe(3);
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('starts a task asked ahead before the tasks already waiting', async () => {
    const limit = bounded(1);
    const started: string[] = [];
    const task = (name: string) => () => {
      started.push(name);
      return settle();
    };
    await Promise.all([
      limit(task('running')),
      limit(task('first')),
      limit(task('second')),
      limit(task('ahead'), { ahead: true }),
    ]);
    expect(started).toEqual(['running', 'ahead', 'first', 'second']);
  });

  it('frees the slot of a task that failed', async () => {
    const limit = bounded(1);
    await expect(limit(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limit(async () => 'next')).toBe('next');
  });
});
