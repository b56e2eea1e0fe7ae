import type { Redis } from 'ioredis';
import { keys } from '../../common/redis-keys';

export const DAY_MS = 86_400_000;

export interface SeriesPoint {
  ms: number;
  value: string;
}

/** One point a second for the 24 hours ending at `endMs` (86,400 points): a daily sine plus a small sawtooth. */
export function daySeries(endMs: number): SeriesPoint[] {
  const count = DAY_MS / 1000;
  return Array.from({ length: count }, (_, i) => ({
    ms: endMs - (count - 1 - i) * 1000,
    value: (20 + 5 * Math.sin((2 * Math.PI * i) / count) + (i % 7) * 0.1).toFixed(2),
  }));
}

/**
 * Writes points straight into a pin's history with the ingest pipeline's member format
 * (`${ms}:${value}`, score ms) and sets the pin's latest value to the newest, `chunk` members per ZADD.
 */
export async function writeDirect(redis: Redis, deviceId: string, pin: string, points: readonly SeriesPoint[], chunk = 5000): Promise<void> {
  const history = keys.pinHistory(deviceId, pin);
  for (let start = 0; start < points.length; start += chunk) {
    const args = points.slice(start, start + chunk).flatMap((p) => [p.ms, `${p.ms}:${p.value}`]);
    await redis.zadd(history, ...args);
  }
  const newest = points[points.length - 1];
  if (newest) {
    await redis.hset(keys.devicePins(deviceId), pin, JSON.stringify({ value: newest.value, updatedAt: new Date(newest.ms).toISOString() }));
  }
}
