import { deviceEventRoute } from '../common/device-event-route';
import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import { luaScript } from './lua/load';

/**
 * A bulk import of past readings in one Redis step (import-points-4.lua): the readings go to the
 * history stream as one bulk entry (store/history-stream.ts), and each pin's latest value moves to
 * its newest reading unless a newer value is there, publishing its pin:update in the same step. Throws StoreError DEVICE_GONE, or
 * HISTORY_BACKLOG when the readings do not fit in the history stream, having written nothing.
 */
const run = luaScript('import-points-4');

export interface ImportReading {
  /** Canonical pin name (V1, D3, ...). */
  pin: string;
  value: string;
  /** Epoch ms of the reading. */
  ms: number;
}

/** Each pin's newest reading (the later one of equal times), as pin, value, ISO time. */
function newestPerPin(readings: readonly ImportReading[]): string[] {
  const newest = new Map<string, ImportReading>();
  for (const r of readings) {
    const best = newest.get(r.pin);
    if (!best || r.ms >= best.ms) newest.set(r.pin, r);
  }
  return [...newest.values()].flatMap((r) => [r.pin, r.value, new Date(r.ms).toISOString()]);
}

export async function importPoints(
  redis: Redis,
  input: { deviceId: string; readings: readonly ImportReading[]; historyStream: string; historyStreamMax: number },
): Promise<{ projectId: string }> {
  const entry: (string | number)[] = [input.deviceId];
  for (const r of input.readings) entry.push(r.ms, r.pin, r.value);
  const reply = (await run(
    redis,
    [
      keys.device(input.deviceId),
      keys.devicePins(input.deviceId),
      streamOf(input.historyStream, input.deviceId),
      keys.historyExtra(streamOf(input.historyStream, input.deviceId)),
    ],
    [
      input.historyStreamMax,
      input.readings.length,
      JSON.stringify(entry),
      input.deviceId,
      ...deviceEventRoute,
      ...newestPerPin(input.readings),
    ],
  )) as [string];
  return { projectId: String(reply[0]) };
}
