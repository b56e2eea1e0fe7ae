import { rooms } from '../common/contracts';
import { keys } from '../common/redis-keys';
import { hsetWhileExists } from '../store/lua/hset-if-exists';
import { deviceReportedAt, parseLatestValue } from '../store/latest-value';
import { parseLocks } from '../store/pin-locks';
import { createAlarmStore } from '../store/alarms';
import { writeStatus } from '../store/device-mirror';
import type { ActivityDeps } from './deps';
import { readTwinRules } from './rules';
import type {
  BootstrapResult,
  DeleteLockRequest,
  LastSeenRequest,
  LastSeenResult,
  MirrorSnapshot,
  RulesResult,
  WriteInfoRequest,
  WriteLockRequest,
  WriteStatusRequest,
  WriteStatusResult,
} from './types';

function snapshot(h: Record<string, string>): MirrorSnapshot {
  return {
    status: h.status === 'online' || h.status === 'offline' ? h.status : null,
    lastSeen: h.lastSeen || null,
    statusChangedAt: h.statusChangedAt || null,
    ipAddress: h.ipAddress || null,
    firmwareVersion: h.firmwareVersion || null,
    hardwareType: h.hardwareType || null,
  };
}

/** Activities that read and write the Redis mirror the gateway's hot path reads. */
export function createMirrorActivities({ redis, emit, logger }: ActivityDeps) {
  const alarmStore = createAlarmStore(redis);
  return {
    /** Everything a fresh twin (never started, or lost) rebuilds itself from. */
    async bootstrapTwin({ deviceId }: { deviceId: string }): Promise<BootstrapResult> {
      const [exists, state, locks] = await Promise.all([
        redis.exists(keys.device(deviceId)),
        redis.hgetall(keys.deviceState(deviceId)),
        redis.hgetall(keys.deviceLocks(deviceId)),
      ]);
      const rules = exists === 1 ? await readTwinRules(redis, deviceId) : [];
      return { exists: exists === 1, mirror: snapshot(state), locks: parseLocks(locks), rules };
    },

    async loadTwinRules({ deviceId }: { deviceId: string }): Promise<RulesResult> {
      const exists = (await redis.exists(keys.device(deviceId))) === 1;
      return { exists, rules: exists ? await readTwinRules(redis, deviceId) : [] };
    },

    /** The check-back read: the device's and some pins' last-seen times, as the gateway wrote them. */
    async readLastSeen({ deviceId, pins, alarms }: LastSeenRequest): Promise<LastSeenResult> {
      const [exists, lastSeen, pendingCommands, values, alarmReadings] = await Promise.all([
        redis.exists(keys.device(deviceId)),
        redis.hget(keys.deviceState(deviceId), 'lastSeen'),
        redis.hlen(keys.devicePending(deviceId)),
        pins.length > 0 ? redis.hmget(keys.devicePins(deviceId), ...pins) : Promise.resolve([] as (string | null)[]),
        alarms ? alarmStore.readings(deviceId, alarms) : Promise.resolve(undefined),
      ]);
      const result: LastSeenResult['pins'] = {};
      // A pin's data is what the device reported: apps' writes toward it do not keep a no_data rule quiet.
      pins.forEach((pin, i) => {
        const latest = parseLatestValue(values[i]);
        const reportedAt = latest ? deviceReportedAt(latest) : null;
        result[pin] = latest && reportedAt ? { value: latest.value, updatedAt: reportedAt } : null;
      });
      const read: LastSeenResult = { exists: exists === 1, lastSeen: lastSeen || null, pins: result, pendingCommands };
      return alarmReadings ? { ...read, alarms: alarmReadings } : read;
    },

    /** Writes status, statusChangedAt and lastSeen, then emits `device:status` to the project and device rooms. */
    async writeStatus(req: WriteStatusRequest): Promise<WriteStatusResult> {
      const { written, lastSeen, seq } = await writeStatus(redis, req);
      if (!written) {
        logger.debug({ deviceId: req.deviceId }, 'status not mirrored: device is gone');
        return { written: false, lastSeen: null };
      }
      await emit([rooms.project(req.projectId), rooms.device(req.deviceId)], 'device:status', {
        deviceId: req.deviceId,
        status: req.status,
        lastSeen,
        reason: req.status === 'offline' ? (req.disconnectReason ?? null) : null,
        seq,
      });
      return { written: true, lastSeen };
    },

    async writeInfo({ deviceId, ...info }: WriteInfoRequest): Promise<{ written: boolean }> {
      const fields = Object.fromEntries(
        Object.entries(info).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      return { written: await hsetWhileExists(redis, keys.device(deviceId), keys.deviceState(deviceId), fields) };
    },

    /** Mirrors a lock and drops any command kept for that pin: a locked pin takes no writes toward the device. */
    async writeLock({ deviceId, lock }: WriteLockRequest): Promise<{ written: boolean }> {
      const json = JSON.stringify({ lockedAt: lock.lockedAt, widgetId: lock.widgetId });
      const written = await hsetWhileExists(redis, keys.device(deviceId), keys.deviceLocks(deviceId), { [lock.pin]: json });
      await redis.hdel(keys.devicePending(deviceId), lock.pin);
      return { written };
    },

    async deleteLock({ deviceId, pin }: DeleteLockRequest): Promise<{ deleted: boolean }> {
      return { deleted: (await redis.hdel(keys.deviceLocks(deviceId), pin)) === 1 };
    },
  };
}
