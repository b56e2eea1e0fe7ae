/**
 * A per-key cache whose entries a change message drops (`invalidate`): the next read of a dropped
 * key waits for its reload, reads of other keys use memory only. Loads of one key arriving together
 * share one read; a load that raced a change is not kept. Entries older than `maxAgeMs` (a safety
 * net, not the mechanism) are still used while one reload runs in the background.
 */
export function createReloadingCache<V>(
  load: (key: string) => Promise<V>,
  maxAgeMs: number,
  onStaleReloadFailed: (err: unknown, key: string) => void,
) {
  const entries = new Map<string, { value: V; loadedAt: number }>();
  const loading = new Map<string, Promise<V>>();
  /** Bumped on every change, so a load that raced a change is not cached. */
  let generation = 0;

  function reload(key: string): Promise<V> {
    const under = loading.get(key);
    if (under) return under;
    const started = generation;
    const read = load(key)
      .then((value) => {
        if (generation === started) entries.set(key, { value, loadedAt: Date.now() });
        return value;
      })
      .finally(() => {
        if (loading.get(key) === read) loading.delete(key);
      });
    loading.set(key, read);
    return read;
  }

  return {
    /** The value of `key`, from memory when it holds one. */
    async get(key: string): Promise<V> {
      const entry = entries.get(key);
      if (!entry) return reload(key);
      if (Date.now() - entry.loadedAt > maxAgeMs && !loading.has(key)) reload(key).catch((err: unknown) => onStaleReloadFailed(err, key));
      return entry.value;
    },
    /** `key` changed: its next read loads it again. */
    invalidate(key: string): void {
      generation++;
      entries.delete(key);
      loading.delete(key);
    },
    /** Everything may have changed (the change messages were missed). */
    clear(): void {
      generation++;
      entries.clear();
      loading.clear();
    },
  };
}
