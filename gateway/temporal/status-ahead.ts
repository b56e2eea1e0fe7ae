/**
 * Reconnect storms (docs/architecture.md, "Reconnect storms"): a device coming online is shown
 * online by the gateway at once, ahead of its twin, which stays the source of truth and confirms
 * or corrects the mirror one round trip later.
 *
 * One Redis step (write-status-ahead-4.lua) writes the mirror's `online` (marked `statusAhead`,
 * never over a later change) and the twin's signal as a `twin-online` outbox intent, so the twin is
 * told of every `online` written ahead of it even if Temporal is down now, and its `device:status`.
 * Temporal is not on this path: a storm of reconnects costs Redis round trips, and the outbox relay
 * hands the signals to the twins at the pace Temporal takes them.
 *
 * Liveness follows workflows/twin/liveness.ts: the twin decides online and offline; what is shown
 * here is the `online` that module decides for activity after the device's last change.
 */
import type { Redis } from '../../common/redis';
import { writeStatusAhead } from '../../store/device-mirror';

export interface StatusAheadDeps {
  redis: Redis;
  /** The outbox stream the twin's `twin-online` intent is written to. */
  outbox: string;
}

export function createStatusAhead({ redis, outbox }: StatusAheadDeps) {
  return {
    /**
     * Activity at `at` from a device (its `online` status, or a value on `pin` while the mirror did
     * not show it online): lastSeen, and when the mirror does not show it online, `online` ahead of
     * the twin with the twin's intent and `device:status`. A status `online` always tells the twin
     * (one signal per connect): it may hold an offline the mirror does not show yet.
     */
    async online(deviceId: string, at: string, pin?: string): Promise<void> {
      await writeStatusAhead(redis, { deviceId, at, outbox, ...(pin === undefined ? { always: true } : { pin }) });
    },
  };
}

export type StatusAhead = ReturnType<typeof createStatusAhead>;
