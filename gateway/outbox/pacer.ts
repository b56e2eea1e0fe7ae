import type { OutboxIntent } from '../../common/outbox-intents';

/**
 * A node's budget of intents in flight, shared by the relays of one stream family (the
 * `twin-online` relays: docs/architecture.md "Reconnect storms"). A relay takes slots before it
 * reads (so it reads no more than it can carry out at once, and nothing it read waits idle where
 * another node's relay would take it over as abandoned), and gives each back once its intent is
 * settled: at once when it failed, and after `holdUntil(intent)` when it was carried out, so the
 * budget can bound the work downstream (twins still confirming), not only the calls in flight.
 */
export interface IntentPacer {
  /** Waits until a slot is free, then takes up to `max` of the free ones; resolves with how many it took. */
  take(max: number): Promise<number>;
  /** Gives back slots taken and not used (the read brought fewer entries). */
  giveBack(count: number): void;
  /** Gives back an intent's slot: after `holdUntil(intent)` when it was carried out, at once otherwise. */
  settled(intent: OutboxIntent, carriedOut: boolean): void;
}

export function createPacer(slots: number, holdUntil: (intent: OutboxIntent) => Promise<void> = async () => undefined): IntentPacer {
  let free = slots;
  const waiting: (() => void)[] = [];

  function giveBack(count: number): void {
    free += count;
    while (free > 0 && waiting.length > 0) (waiting.shift() as () => void)();
  }

  return {
    async take(max) {
      while (free <= 0) await new Promise<void>((resolve) => waiting.push(resolve));
      const taken = Math.min(max, free);
      free -= taken;
      return taken;
    },
    giveBack,
    settled(intent, carriedOut) {
      if (!carriedOut) return giveBack(1);
      holdUntil(intent).then(
        () => giveBack(1),
        () => giveBack(1),
      );
    },
  };
}
