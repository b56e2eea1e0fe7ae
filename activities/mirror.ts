import { rooms } from '../common/contracts';
import { keys } from '../common/redis-keys';
import { hsetWhileExists } from '../store/lua/hset-if-exists';
import { parseLatestValue } from '../store/latest-value';
import { parseLocks } from '../store/pin-locks';
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

/**
 * Status write, a no-op once the device is gone. lastSeen only moves forward (ISO 8601 UTC
 * strings of one format compare like the times they stand for).
 * Going offline also clears the gateway's wake marker, so the device's next message signals the
 * twin at once however recently the last wake was.
 * KEYS: 1 device:{id}, 2 device:{id}:state, 3 device:{id}:wake. ARGV: 1 status, 2 statusChangedAt, 3 lastSeen or ''.
 * Returns {1, lastSeen or ''} or {0, ''}.
 */
const WRITE_STATUS_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, ''} end
redis.call('HSET', KEYS[2], 'status', ARGV[1], 'statusChangedAt', ARGV[2])
if ARGV[1] == 'offline' then redis.call('DEL', KEYS[3]) end
local seen = redis.call('HGET', KEYS[2], 'lastSeen')
if ARGV[3] ~= '' and ((not seen) or seen < ARGV[3]) then
  redis.call('HSET', KEYS[2], 'lastSeen', ARGV[3])
  seen = ARGV[3]
end
return {1, seen or ''}`;

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
    async readLastSeen({ deviceId, pins }: LastSeenRequest): Promise<LastSeenResult> {
      const [exists, lastSeen, pendingCommands, values] = await Promise.all([
        redis.exists(keys.device(deviceId)),
        redis.hget(keys.deviceState(deviceId), 'lastSeen'),
        redis.hlen(keys.devicePending(deviceId)),
        pins.length > 0 ? redis.hmget(keys.devicePins(deviceId), ...pins) : Promise.resolve([] as (string | null)[]),
      ]);
      const result: LastSeenResult['pins'] = {};
      pins.forEach((pin, i) => {
        result[pin] = parseLatestValue(values[i]);
      });
      return { exists: exists === 1, lastSeen: lastSeen || null, pins: result, pendingCommands };
    },

    /** Writes status, statusChangedAt and lastSeen, then emits `device:status` to the project and device rooms. */
    async writeStatus(req: WriteStatusRequest): Promise<WriteStatusResult> {
      const [written, seen] = (await redis.eval(
        WRITE_STATUS_LUA,
        3,
        keys.device(req.deviceId),
        keys.deviceState(req.deviceId),
        keys.deviceWake(req.deviceId),
        req.status,
        req.statusChangedAt,
        req.lastSeen ?? '',
      )) as [number, string];
      if (written !== 1) {
        logger.debug({ deviceId: req.deviceId }, 'status not mirrored: device is gone');
        return { written: false, lastSeen: null };
      }
      const lastSeen = seen || null;
      await emit([rooms.project(req.projectId), rooms.device(req.deviceId)], 'device:status', {
        deviceId: req.deviceId,
        status: req.status,
        lastSeen,
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
