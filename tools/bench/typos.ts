import { CATEGORIES } from './seed.js';

/**
 * Misspellings of the seeded catalogue's words, all different and none a real word, so that each
 * search for one is a miss of every cache: what a crowd of shoppers typing badly costs. The same
 * seed gives the same list, so runs compare.
 */
export function distinctTypos(count: number, seed = 15): string[] {
  const words = new Set<string>();
  for (const category of CATEGORIES) {
    for (const text of [category.name, ...category.brands, ...category.types]) {
      for (const word of text.toLowerCase().split(/[^a-z]+/)) if (word.length >= 4) words.add(word);
    }
  }
  const real = [...words];
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const edits: ((w: string, i: number) => string)[] = [
    (w, i) => w.slice(0, i) + w.slice(i + 1), // a letter left out
    (w, i) => (i + 1 < w.length ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2) : w), // two swapped
    (w, i) => w.slice(0, i) + pick([...letters]) + w.slice(i + 1), // a wrong letter
    (w, i) => w.slice(0, i) + pick([...letters]) + w.slice(i), // a letter too many
  ];
  const typos = new Set<string>();
  let attempts = 0;
  while (typos.size < count) {
    if (++attempts > count * 1000) throw new Error(`only ${typos.size} distinct typos could be made`);
    let typo = pick(real);
    // One or two slips of the finger.
    const slips = random() < 0.7 ? 1 : 2;
    for (let s = 0; s < slips; s++) typo = pick(edits)(typo, Math.floor(random() * typo.length));
    if (typo.length >= 3 && !words.has(typo)) typos.add(typo);
  }
  return [...typos];
}

/** A small seeded generator (mulberry32): the same typos on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
