import { describe, expect, it } from 'vitest';
import { type CatalogVersion, coalesced } from './catalog-cache.js';

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
