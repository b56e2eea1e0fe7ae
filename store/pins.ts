import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { parseLatestValue } from './latest-value';
import { pinLabels } from './pin-labels';
import type { PinSeriesStore } from './pin-series';

/** A recorded pin as the external interfaces show it (SPEC §2.7). */
export interface PinView {
  pin: string;
  value: string;
  label: string | null;
  updatedAt: string;
}

export interface HistoryPoint {
  value: string;
  timestamp: string;
}

function toView(pin: string, json: string | null, labels: Map<string, string>): PinView | null {
  const latest = parseLatestValue(json);
  return latest ? { pin, value: latest.value, label: labels.get(pin) ?? null, updatedAt: latest.updatedAt } : null;
}

/** Reads of the latest values (with their labels) and the raw history of a device's pins. */
export function createPinStore(redis: Redis, series: PinSeriesStore) {
  return {
    /** Every recorded pin of the device, ordered by name (A, D, V; numerically within each). */
    async all(deviceId: string): Promise<PinView[]> {
      const [stored, labels] = await Promise.all([redis.hgetall(keys.devicePins(deviceId)), pinLabels(redis, deviceId)]);
      return Object.entries(stored)
        .flatMap(([pin, json]) => toView(pin, json, labels) ?? [])
        .sort((a, b) => a.pin.localeCompare(b.pin, 'en', { numeric: true }));
    },

    /** One pin by its canonical name, or null when it has no recorded value. */
    async one(deviceId: string, pin: string): Promise<PinView | null> {
      const [json, labels] = await Promise.all([redis.hget(keys.devicePins(deviceId), pin), pinLabels(redis, deviceId)]);
      return toView(pin, json, labels);
    },

    /** The newest `limit` points of a pin between `from` and `to` (either open), oldest first; null when the pin has no recorded value. */
    async history(
      deviceId: string,
      pin: string,
      window: { from: Date | null; to: Date | null; limit: number },
    ): Promise<HistoryPoint[] | null> {
      if ((await redis.hexists(keys.devicePins(deviceId), pin)) === 0) return null;
      return (await series.text(deviceId, pin, window)).map((p) => ({ value: p.value, timestamp: p.timestamp }));
    },
  };
}

export type PinStore = ReturnType<typeof createPinStore>;
