import type { Redis } from '../common/redis';
import { luaScript } from './lua/load';

/**
 * The service's one fixed-window counter (rate-limit-n.lua): every rate limit and throttle counts
 * through it. Windows are aligned on the epoch; a counter lives a little past its window, so a node
 * whose clock lags still finds it.
 */
const COUNT = luaScript('rate-limit-n');
const TAKE_BACK = luaScript('take-back-1');

const EXPIRY_GRACE_S = 60;

export interface Window {
  /** The counter's key; every window of one call in one slot. */
  key: string;
  /** null: no limit (still counted). */
  limit: number | null;
  /** Unix seconds when the window ends. */
  endsAt: number;
}

export interface WindowCount {
  allowed: boolean;
  /** Each window's count after this request (this one included when it was counted), in order. */
  counts: number[];
}

/** The window of `lengthS` seconds that `nowMs` falls in: its number since the epoch and its end (Unix s). */
export function windowAt(nowMs: number, lengthS: number): { index: number; endsAt: number } {
  const index = Math.floor(nowMs / 1000 / lengthS);
  return { index, endsAt: (index + 1) * lengthS };
}

/** Seconds until the window ends, at least 1: a Retry-After. */
export function secondsLeft(endsAt: number, nowMs: number): number {
  return Math.max(1, endsAt - Math.floor(nowMs / 1000));
}

/** Counts one request in every window unless one is full (then in none); `count` false only reads. */
export async function countWindows(redis: Redis, windows: readonly Window[], count = true): Promise<WindowCount> {
  const args = windows.flatMap((w) => [w.limit ?? -1, w.endsAt + EXPIRY_GRACE_S]);
  const reply = (await COUNT(
    redis,
    windows.map((w) => w.key),
    [count ? '1' : '0', ...args],
  )) as number[];
  return { allowed: reply[0] === 1, counts: reply.slice(1) };
}

/** Takes back one request a counter counted (in the window it was counted in). */
export async function takeBack(redis: Redis, key: string): Promise<void> {
  await TAKE_BACK(redis, [key], []);
}
