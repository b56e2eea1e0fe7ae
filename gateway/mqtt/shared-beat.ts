/**
 * A gate that lets work through together: `next()` resolves `ms` after the first call since the
 * gate last opened, and every call in between resolves in that same turn of the event loop. With
 * `ms` 0 it resolves at once.
 *
 * The MQTT bridge starts each value's ingest behind it (INGEST_LINGER_MS). At a thousand values a
 * second nearly every value otherwise arrives in an event-loop turn of its own and pays alone for
 * what a turn costs: its store step written to Redis in a write of its own and read back in a read
 * of its own, its event published, and received back by the node's Socket.IO adapter, alone.
 * Values that start together share those (a connection sends the commands of one event-loop
 * iteration in one write: common/cork.ts), at the price of up to `ms` more before each is stored.
 */
export function sharedBeat(ms: number): { next(): Promise<void> } {
  let opening: Promise<void> | null = null;
  return {
    next(): Promise<void> {
      if (ms === 0) return Promise.resolve();
      opening ??= new Promise<void>((resolve) =>
        setTimeout(() => {
          opening = null;
          resolve();
        }, ms),
      );
      return opening;
    },
  };
}
