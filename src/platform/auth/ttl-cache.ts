interface Entry<T> {
  value: T;
  fetchedAt: number;
}

/**
 * Loaded values kept for a TTL, at most `maxEntries` of them (the oldest written goes first): no database round trip per
 * request, and a change made by any instance (or the CLI) is seen here once the entry is older than the TTL.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly ttlMs: number, private readonly maxEntries = 10_000) {}

  /**
   * The cached value, or `load`'s when there is none, it is stale, or the clock went back. A fresh entry is answered as is,
   * not in a promise: a request that finds its key cached goes on in the same tick.
   */
  get(key: string, now: number, load: () => Promise<T>): T | Promise<T> {
    const entry = this.entries.get(key);
    if (entry && now - entry.fetchedAt < this.ttlMs && now >= entry.fetchedAt) return entry.value;
    return load().then((value) => {
      this.remember(key, { value, fetchedAt: now });
      return value;
    });
  }

  private remember(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, entry);
  }
}
