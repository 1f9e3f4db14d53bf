// A value read at most once per time window, for facts a busy loop reads again and again
// (a message drain's triggers, limits and deployed versions).

/**
 * A value read at most once per `ttlMs`. The read is settled into a real Promise: a drizzle
 * query builder is a thenable that runs its query again on every await. A failed read is
 * forgotten, so the next call tries again.
 */
export function recent<T>(read: () => PromiseLike<T>, ttlMs: number, clock: () => number = Date.now): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = clock();
    if (!cached || now - cached.at >= ttlMs) {
      const value = Promise.resolve(read());
      cached = { at: now, value };
      value.catch(() => (cached = undefined));
    }
    return cached.value;
  };
}

/** `recent` per key: one cached read for each key seen. */
export function recentBy<T>(read: (key: string) => PromiseLike<T>, ttlMs: number, clock: () => number = Date.now): (key: string) => Promise<T> {
  const byKey = new Map<string, () => Promise<T>>();
  return (key) => {
    let get = byKey.get(key);
    if (!get) {
      get = recent(() => read(key), ttlMs, clock);
      byKey.set(key, get);
    }
    return get();
  };
}
