import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { type LatestValue, parseLatestValue } from './latest-value';
import { hsetWhileExists } from './lua/hset-if-exists';
import { luaScript } from './lua/load';

/** DONE: removes a kept command only if it is still the one that was delivered (no newer value came). */
const DONE = luaScript('command-delivered-1');

export interface PendingCommand {
  pin: string;
  value: string;
  queuedAt: string;
  /** The time of the write it carries (its latest value's `updatedAt`); absent in commands kept by older versions. */
  at?: string;
  /** The stored JSON, to remove exactly this command once delivered. */
  raw: string;
  /** Its command record (docs/commands.md); absent in commands kept by older versions. */
  commandId?: string;
  /** Past this (ISO) it is never sent. */
  expiresAt?: string;
}

/**
 * Commands kept for a device that is not online (newest value per pin). The ingest script keeps
 * them atomically with the value; the device's twin delivers them when it comes online.
 */
export function createPendingCommandStore(redis: Redis) {
  return {
    async keep(
      deviceId: string,
      pin: string,
      value: string,
      at: Date = new Date(),
      command?: { id: string; expiresAt: string | null },
    ): Promise<boolean> {
      const json = JSON.stringify({
        value,
        queuedAt: new Date().toISOString(),
        at: at.toISOString(),
        ...(command ? { commandId: command.id, ...(command.expiresAt ? { expiresAt: command.expiresAt } : {}) } : {}),
      });
      return hsetWhileExists(redis, keys.device(deviceId), keys.devicePending(deviceId), { [pin]: json });
    },

    /** Oldest first. */
    async list(deviceId: string): Promise<PendingCommand[]> {
      const raw = await redis.hgetall(keys.devicePending(deviceId));
      return Object.entries(raw)
        .map(([pin, json]) => ({
          pin,
          raw: json,
          ...(JSON.parse(json) as { value: string; queuedAt: string; at?: string; commandId?: string; expiresAt?: string }),
        }))
        .sort((a, b) => a.queuedAt.localeCompare(b.queuedAt) || a.pin.localeCompare(b.pin));
    },

    /** The pin's latest value now (to tell whether a kept command is still the newest write). */
    async latest(deviceId: string, pin: string): Promise<LatestValue | null> {
      return parseLatestValue(await redis.hget(keys.devicePins(deviceId), pin));
    },

    async delivered(deviceId: string, command: PendingCommand): Promise<void> {
      await DONE(redis, [keys.devicePending(deviceId)], [command.pin, command.raw]);
    },
  };
}

export type PendingCommandStore = ReturnType<typeof createPendingCommandStore>;
