import type { Config } from '../../common/config';
import { deviceValuesPerSecond } from '../../common/device-rate';
import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import type { Stores } from '../../store';

/** How long a node keeps a device's rate before it reads its owner's plan again: a plan change counts within it. */
const FRESH_MS = 60_000;
/** The most devices a node keeps rates for (the oldest go first). */
const MAX_DEVICES = 100_000;

/**
 * The value rate of each device (its owner's plan, DESIGN §11), for the MQTT bridge: kept per node
 * for a minute, read from the device's `ownerId` (or, for a device made before it was recorded,
 * its project's owner) and that user's plan. A device it cannot place has no limit (the store step
 * then refuses a device that is gone).
 */
export function createDeviceRates(deps: { redis: Redis; stores: Pick<Stores, 'users' | 'projects'>; config: Config }) {
  const known = new Map<string, { perSecond: number | null; at: number }>();

  async function read(deviceId: string): Promise<number | null> {
    const [ownerId, projectId] = await deps.redis.hmget(keys.device(deviceId), 'ownerId', 'projectId');
    const owner = ownerId ?? (projectId ? await deps.stores.projects.ownerOf(projectId) : null);
    const plan = owner ? await deps.stores.users.planOf(owner) : null;
    return plan ? deviceValuesPerSecond(deps.config, plan) : null;
  }

  return {
    /** Values a second the device may send; null for no limit. */
    async perSecond(deviceId: string): Promise<number | null> {
      const now = Date.now();
      const cached = known.get(deviceId);
      if (cached && now - cached.at < FRESH_MS) return cached.perSecond;
      const perSecond = await read(deviceId);
      known.delete(deviceId);
      if (known.size >= MAX_DEVICES) known.delete(known.keys().next().value as string);
      known.set(deviceId, { perSecond, at: now });
      return perSecond;
    },
  };
}

export type DeviceRates = ReturnType<typeof createDeviceRates>;
