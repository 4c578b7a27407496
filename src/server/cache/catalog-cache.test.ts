import { describe, expect, it } from 'vitest';
import { bounded } from './bounded.js';
import { CatalogCache, type CatalogVersion, coalesced, localVersion } from './catalog-cache.js';

/** A version store whose reads finish when the test says, each answering the version at its start. */
function controlledStore() {
  let version = 0;
  const pending: Array<() => void> = [];
  const store: CatalogVersion = {
    current: () => {
      const seen = String(version);
      return new Promise((resolve) => pending.push(() => resolve(seen)));
    },
    bump: async () => {
      version += 1;
    },
  };
  const finishReads = async () => {
    for (const finish of pending.splice(0)) finish();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { store, pending, finishReads };
}

describe('coalesced catalogue version reads', () => {
  it('never answers a request with a read that started before it arrived', async () => {
    const { store, pending, finishReads } = controlledStore();
    const versions = coalesced(store);
    const early = versions.current();
    expect(pending.length).toBe(1);
    // A write finishes while that read is under way; a request arriving now must see it.
    await store.bump();
    const late = versions.current();
    await finishReads();
    expect(await early).toBe('0');
    // The late request waited for a second read, started after the first one ended.
    expect(pending.length).toBe(1);
    await finishReads();
    expect(await late).toBe('1');
  });

  it('makes the requests that arrive during one read share the next', async () => {
    const { store, pending, finishReads } = controlledStore();
    const versions = coalesced(store);
    const first = versions.current();
    const waiting = Array.from({ length: 50 }, () => versions.current());
    expect(pending.length).toBe(1);
    await finishReads();
    await first;
    expect(pending.length).toBe(1);
    await finishReads();
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['0']));
    expect(pending.length).toBe(0);
  });

  it('passes a failed read on to the requests that waited for it, and recovers', async () => {
    let fail = true;
    const versions = coalesced({
      current: async () => {
        if (fail) throw new Error('Redis is away');
        return '7';
      },
      bump: async () => {},
    });
    await expect(versions.current()).rejects.toThrow('Redis is away');
    fail = false;
    expect(await versions.current()).toBe('7');
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

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('single-flight misses', () => {
  const newCache = (version: CatalogVersion, computeSlots = 4) =>
    new CatalogCache({
      version,
      computeSlots,
      onError: (error) => {
        throw error;
      },
    });

  it('computes a miss once, however many requests want it at once, and all get its answer', async () => {
    const cache = newCache(localVersion());
    const search = controlledCompute({ hits: 3 });
    const answers = Array.from({ length: 100 }, () => cache.get('page:1:samsng', search.compute));
    await settle();
    expect(search.started()).toBe(1);
    search.finishAll();
    const bodies = new Set((await Promise.all(answers)).map((a) => a.body));
    expect(bodies).toEqual(new Set(['{"hits":3}']));
    // And once computed, it is a hit.
    await cache.get('page:1:samsng', search.compute);
    expect(search.started()).toBe(1);
  });

  it('does not hand a request that arrived after a write the computation that started before it', async () => {
    const version = localVersion();
    const cache = newCache(version);
    const before = controlledCompute('old');
    const early = cache.get('top', before.compute);
    await settle();
    await version.bump();
    const after = controlledCompute('new');
    const late = cache.get('top', after.compute);
    await settle();
    expect([before.started(), after.started()]).toEqual([1, 1]);
    before.finishAll();
    after.finishAll();
    expect((await early).body).toBe('"old"');
    expect((await late).body).toBe('"new"');
  });

  it('passes a failed computation to the requests that waited for it, and tries again on the next', async () => {
    const cache = newCache(localVersion());
    let calls = 0;
    const failing = async () => {
      calls += 1;
      await settle();
      throw new Error('statement timeout');
    };
    const results = await Promise.allSettled([cache.get('k', failing), cache.get('k', failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect((await cache.get('k', async () => 'fine')).body).toBe('"fine"');
  });

  it('computes at most computeSlots different misses at once; the others wait their turn', async () => {
    const cache = newCache(localVersion(), 2);
    const searches = Array.from({ length: 6 }, (_, i) => controlledCompute(i));
    const answers = searches.map((search, i) => cache.get(`page:1:typo${i}`, search.compute));
    await settle();
    expect(searches.map((s) => s.started())).toEqual([1, 1, 0, 0, 0, 0]);
    searches[0]?.finishAll();
    await settle();
    expect(searches.map((s) => s.started())).toEqual([1, 1, 1, 0, 0, 0]);
    for (const search of searches) {
      search.finishAll();
      await settle();
    }
    for (const search of searches) search.finishAll();
    expect((await Promise.all(answers)).map((a) => a.body)).toEqual(['0', '1', '2', '3', '4', '5']);
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

  it('frees the slot of a task that failed', async () => {
    const limit = bounded(1);
    await expect(limit(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limit(async () => 'next')).toBe('next');
  });
});
