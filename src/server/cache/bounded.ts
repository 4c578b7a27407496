/**
 * Runs at most `limit` tasks at once; the others wait their turn, first come first served. The
 * catalogue cache computes its misses through one of these, so that however many uncached
 * searches arrive together they hold at most `limit` database connections, and the rest of the
 * pool stays free for orders, sign-ins and payments.
 */
export type Bounded = <T>(task: () => Promise<T>, options?: { ahead?: boolean }) => Promise<T>;

/**
 * `ahead` puts a task at the front of the queue: for one short statement that many requests wait
 * on (spelling a batch of keywords), which should not queue behind the searches it leads to.
 */
export function bounded(limit: number): Bounded {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`bounded: limit must be a positive integer, not ${limit}`);
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return async <T>(task: () => Promise<T>, options?: { ahead?: boolean }): Promise<T> => {
    if (running < limit) running += 1;
    // The slot passes straight from a finishing task to the next waiting one.
    else await new Promise<void>((resolve) => (options?.ahead ? waiting.unshift(resolve) : waiting.push(resolve)));
    try {
      return await task();
    } finally {
      release();
    }
  };
}
