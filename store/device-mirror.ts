import type { DisconnectReason, PinLock } from '../common/contracts';
import { deviceEventRoute } from '../common/device-event-route';
import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import { hsetWhileExists } from './lua/hset-if-exists';
import { luaScript } from './lua/load';
import { TWIN_MESSAGE_WINDOW_MS } from './twin-messages';

/** The twin's status write to the mirror, a no-op once the device is gone (write-status-4.lua). */
const WRITE_STATUS = luaScript('write-status-4');

export interface StatusWrite {
  deviceId: string;
  status: 'online' | 'offline';
  statusChangedAt: string;
  lastSeen: string | null;
  disconnectReason?: DisconnectReason | null;
  /** The twin's first status for a device whose mirror had none: written only while it still has none. */
  firstStatus?: boolean;
}

/**
 * Writes status, statusChangedAt, lastSeen (which only moves forward) and the disconnect reason
 * (kept while offline); going offline clears the wake marker; an `online` written ahead by the
 * gateway is confirmed (or corrected). A change of status, statusChangedAt or reason publishes its
 * `device:status` in the same step (write-status-4.lua; none when the mirror already said so).
 * Returns the lastSeen now stored, or `written: false` when the device is gone.
 */
export async function writeStatus(redis: Redis, req: StatusWrite): Promise<{ written: boolean; lastSeen: string | null }> {
  const [written, seen] = (await WRITE_STATUS(
    redis,
    [keys.device(req.deviceId), keys.deviceState(req.deviceId), keys.deviceWake(req.deviceId), keys.fleetIndex(req.deviceId)],
    [
      req.status,
      req.statusChangedAt,
      req.lastSeen ?? '',
      req.status === 'offline' ? (req.disconnectReason ?? '') : '',
      req.firstStatus ? '1' : '',
      req.deviceId,
      ...deviceEventRoute,
    ],
  )) as [number, string];
  return written === 1 ? { written: true, lastSeen: seen || null } : { written: false, lastSeen: null };
}

/** The gateway's write ahead of the twin, with the twin's signal as an outbox intent (write-status-ahead-4.lua). */
const WRITE_STATUS_AHEAD = luaScript('write-status-ahead-4');

export interface StatusAhead {
  /** `online` was written (marked `statusAhead` until the twin confirms it) and the twin's intent with it. */
  written: boolean;
  /** The mirror's status after the call ('' when it has none). */
  status: string;
  lastSeen: string | null;
}

/**
 * Activity from a device at `at` (a status `online`, or a value on `pin`): moves lastSeen forward
 * and, unless the mirror shows online already or changed status at or after `at`, writes `online`
 * ahead of the twin, with the `twin-online` intent to `outbox` and its `device:status` in the same
 * step (`always`: the intent also when the mirror shows online). Nothing is written
 * for a device that is gone (`written: false`, status '').
 */
export async function writeStatusAhead(
  redis: Redis,
  input: {
    deviceId: string;
    at: string;
    pin?: string;
    outbox: string /** Tell the twin even when the mirror shows online (a status `online`). */;
    always?: boolean;
  },
): Promise<StatusAhead> {
  const reply = (await WRITE_STATUS_AHEAD(
    redis,
    [
      keys.device(input.deviceId),
      keys.deviceState(input.deviceId),
      streamOf(input.outbox, input.deviceId),
      keys.fleetIndex(input.deviceId),
    ],
    [input.deviceId, input.at, input.pin ?? '', input.always ? '1' : '', ...deviceEventRoute, Date.now(), TWIN_MESSAGE_WINDOW_MS],
  )) as [number, string, string];
  const [written, status, seen] = reply;
  return { written: written === 1, status, lastSeen: seen || null };
}

/** The twin's info write to the mirror, its firmware's fleet index entry with it (write-info-3.lua). */
const WRITE_INFO = luaScript('write-info-3');

/** The twin's info fields (ipAddress, firmwareVersion, hardwareType) to the mirror, while the device exists. */
export async function writeInfo(redis: Redis, deviceId: string, fields: Record<string, string>): Promise<boolean> {
  const flat = Object.entries(fields).flat();
  if (flat.length === 0) return (await redis.exists(keys.device(deviceId))) === 1;
  return (
    (await WRITE_INFO(redis, [keys.device(deviceId), keys.deviceState(deviceId), keys.fleetIndex(deviceId)], [deviceId, ...flat])) === 1
  );
}

/**
 * The twin's lock of a pin to the lock mirror, while the device exists, and any command kept for
 * that pin dropped: a locked pin takes no writes toward the device.
 */
export async function writeLock(redis: Redis, deviceId: string, lock: PinLock): Promise<boolean> {
  const json = JSON.stringify({ lockedAt: lock.lockedAt, widgetId: lock.widgetId });
  const written = await hsetWhileExists(redis, keys.device(deviceId), keys.deviceLocks(deviceId), { [lock.pin]: json });
  await redis.hdel(keys.devicePending(deviceId), lock.pin);
  return written;
}
