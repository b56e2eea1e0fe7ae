import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import type { DeviceInfoFields } from '../common/device-info';
import { luaScript } from './lua/load';

const WRITE = luaScript('twin-message-3');
const SETTLE_HELD = luaScript('settle-held-1');

/** A device's status and info messages reach its twin at most once in this window each (DESIGN §11). */
export const TWIN_MESSAGE_WINDOW_MS = 1_000;

/** What a device said that its twin must hear (gateway/mqtt/bridge.ts). */
export type TwinMessage =
  | { kind: 'status'; payload: { deviceId: string; status: 'offline'; at: string; reason?: 'status message' | 'last will' } }
  | { kind: 'info'; payload: { deviceId: string; info: DeviceInfoFields; at: string } };

/**
 * Writes a device's message for its twin to the outbox, in the device's shard of `outbox` (its
 * projectId added by the script): merged with what is not told yet, and told by one `twin-held`
 * intent at a time, at most one a second of each kind (store/lua/lib/twin-messages.lua).
 * False when the device is gone. Once this resolves the twin will be told, whatever happens to
 * Temporal or this node.
 */
export async function writeTwinMessage(redis: Redis, outbox: string, message: TwinMessage): Promise<boolean> {
  const { deviceId } = message.payload;
  const reply = await WRITE(
    redis,
    [keys.device(deviceId), keys.deviceState(deviceId), streamOf(outbox, deviceId)],
    [message.kind, JSON.stringify(message.payload), Date.now(), TWIN_MESSAGE_WINDOW_MS],
  );
  return typeof reply === 'string';
}

/** What a `twin-held` intent carries to the twin when it comes due: the messages merged in its window. */
export function createHeldTwinMessages(redis: Redis) {
  return {
    /** The merged message of `kind` as stored (a twinStatusPayload or twinInfoPayload JSON), or null. */
    async read(deviceId: string, kind: 'status' | 'info'): Promise<string | null> {
      return redis.hget(keys.deviceState(deviceId), `msg:${kind}`);
    },
    /** Clears what was read once told, unless more was merged since (false: tell the twin again). */
    async settle(deviceId: string, kind: 'status' | 'info', read: string | null): Promise<boolean> {
      return (await SETTLE_HELD(redis, [keys.deviceState(deviceId)], [kind, read ?? ''])) === 1;
    },
  };
}

export type HeldTwinMessages = ReturnType<typeof createHeldTwinMessages>;
