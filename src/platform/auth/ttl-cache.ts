interface Entry<T> {
  value: T;
  fetchedAt: number;
}

/**
 * Loaded values kept for a TTL, at most `maxEntries` of them (the oldest written goes first): no database round trip per
 * request. A change announced to this process (forget) is seen at once; any other is seen once the entry is older than the TTL.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Bumped by forget(): a load that started before it may have read the old row, so it is answered but not kept. */
  private generation = 0;

  constructor(private readonly ttlMs: number, private readonly maxEntries = 10_000) {}

  /**
   * The cached value, or `load`'s when there is none, it is stale, or the clock went back. A fresh entry is answered as is,
   * not in a promise: a request that finds its key cached goes on in the same tick.
   */
  get(key: string, now: number, load: () => Promise<T>): T | Promise<T> {
    const entry = this.entries.get(key);
    if (entry && now - entry.fetchedAt < this.ttlMs && now >= entry.fetchedAt) return entry.value;
    const generation = this.generation;
    return load().then((value) => {
      if (generation === this.generation) this.remember(key, { value, fetchedAt: now });
      return value;
    });
  }

  /** Drops the entries whose value `matches` (a key revoked or rotated): the next request reads them again. */
  forget(matches: (value: T) => boolean): void {
    this.generation += 1;
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
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
