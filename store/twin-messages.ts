import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import type { DeviceInfoFields } from '../common/device-info';
import { luaScript } from './lua/load';

const WRITE = luaScript('twin-message-2');

/** What a device said that its twin must hear (gateway/mqtt/bridge.ts). */
export type TwinMessage =
  | { type: 'twin-status'; payload: { deviceId: string; status: 'offline'; at: string; reason?: 'status message' | 'last will' } }
  | { type: 'twin-info'; payload: { deviceId: string; info: DeviceInfoFields; at: string } };

/**
 * Writes a device's message for its twin as an outbox intent in the device's shard of `outbox`
 * (its projectId added by the script); false when the device is gone. Once this resolves the twin
 * will be told, whatever happens to Temporal or this node.
 */
export async function writeTwinMessage(redis: Redis, outbox: string, message: TwinMessage): Promise<boolean> {
  const { deviceId } = message.payload;
  const reply = await WRITE(redis, [keys.device(deviceId), streamOf(outbox, deviceId)], [message.type, JSON.stringify(message.payload)]);
  return typeof reply === 'string';
}
