import type { DeviceStatus } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { parseLatestValue } from './latest-value';

/** The field of `device:{id}` holding the device's event sequence number (docs/realtime.md). */
export const SEQ_FIELD = 'seq';

/** What a resync answers for one device: everything a client may have missed, as of `seq`. */
export interface DeviceSnapshot {
  deviceId: string;
  /** The sequence number of the last event this snapshot includes. */
  seq: number;
  status: DeviceStatus;
  lastSeen: string | null;
  pins: Record<string, { value: string; updatedAt: string }>;
}

/**
 * Per-device sequence numbers (docs/realtime.md). Every script that emits an event's change
 * (store-point, write-status, alarm-change, command) increments `device:{id}` field `seq` in the same
 * step, so a snapshot read in one MULTI is exactly the state as of its `seq`.
 */
export function createDeviceSyncStore(redis: Redis) {
  return {
    /** The devices of a project (a project room's subscribers get events of these). */
    deviceIdsOf(projectId: string): Promise<string[]> {
      return redis.zrange(keys.projectDevices(projectId), '0', '-1');
    },

    /** The current sequence number of each device (0 for one without events yet). */
    async seqs(deviceIds: string[]): Promise<Record<string, number>> {
      if (deviceIds.length === 0) return {};
      // Devices live in several slots: concurrent commands, in flight together on each node's connection.
      const replies = await Promise.all(deviceIds.map((id) => redis.hget(keys.device(id), SEQ_FIELD)));
      return Object.fromEntries(deviceIds.map((id, i) => [id, Number(replies[i] ?? 0)]));
    },

    /** Each device's latest values, status and seq, each device read atomically. */
    async snapshots(deviceIds: string[]): Promise<DeviceSnapshot[]> {
      return Promise.all(
        deviceIds.map(async (deviceId) => {
          const replies =
            (await redis
              .multi()
              .hget(keys.device(deviceId), SEQ_FIELD)
              .hmget(keys.deviceState(deviceId), 'status', 'lastSeen')
              .hgetall(keys.devicePins(deviceId))
              .exec()) ?? [];
          const seq = Number(replies[0]?.[1] ?? 0);
          const [status, lastSeen] = (replies[1]?.[1] ?? []) as (string | null)[];
          const raw = (replies[2]?.[1] ?? {}) as Record<string, string>;
          const pins: DeviceSnapshot['pins'] = {};
          for (const [pin, json] of Object.entries(raw)) {
            const latest = parseLatestValue(json);
            if (latest) pins[pin] = { value: latest.value, updatedAt: latest.updatedAt };
          }
          return { deviceId, seq, status: status === 'online' ? 'online' : 'offline', lastSeen: lastSeen || null, pins };
        }),
      );
    },
  };
}

export type DeviceSyncStore = ReturnType<typeof createDeviceSyncStore>;
