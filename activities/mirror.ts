import { ApplicationFailure, Context } from '@temporalio/activity';
import { heartbeatTimeoutOf, lastHeard, silenceDeadline } from '../common/liveness';
import { keys } from '../common/redis-keys';
import { deviceReportedAt, parseLatestValue } from '../store/latest-value';
import { parseLocks } from '../store/pin-locks';
import { createAlarmStore } from '../store/alarms';
import { writeInfo, writeLock, writeStatus } from '../store/device-mirror';
import type { ActivityDeps } from './deps';
import { readHeartbeat } from '../store/heartbeat';
import { readRulesVersion } from '../store/rule-records';
import { readTwinRuleSet } from './rules';
import type {
  AwaitSilenceRequest,
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
} from '../common/twin-activities';

function snapshot(h: Record<string, string>): MirrorSnapshot {
  return {
    status: h.status === 'online' || h.status === 'offline' ? h.status : null,
    lastSeen: h.lastSeen || null,
    statusChangedAt: h.statusChangedAt || null,
    ipAddress: h.ipAddress || null,
    firmwareVersion: h.firmwareVersion || null,
    hardwareType: h.hardwareType || null,
    ...(h.statusAhead ? { statusAhead: true } : {}),
  };
}

/** Activities that read and write the Redis mirror the gateway's hot path reads. */
export function createMirrorActivities({ redis, logger }: ActivityDeps) {
  const alarmStore = createAlarmStore(redis);
  /** The check-back read: the device's and some pins' last-seen times, as the gateway wrote them. */
  async function readLastSeen({ deviceId, projectId, pins, alarms }: LastSeenRequest): Promise<LastSeenResult> {
    const [exists, lastSeen, pendingCommands, values, alarmReadings, rulesVersion] = await Promise.all([
      redis.exists(keys.device(deviceId)),
      redis.hget(keys.deviceState(deviceId), 'lastSeen'),
      redis.hlen(keys.devicePending(deviceId)),
      pins.length > 0 ? redis.hmget(keys.devicePins(deviceId), ...pins) : Promise.resolve([] as (string | null)[]),
      alarms ? alarmStore.readings(deviceId, alarms) : Promise.resolve(undefined),
      projectId ? readRulesVersion(redis, projectId) : Promise.resolve(undefined),
    ]);
    const result: LastSeenResult['pins'] = {};
    // A pin's data is what the device reported: apps' writes toward it do not keep a no_data rule quiet.
    pins.forEach((pin, i) => {
      const latest = parseLatestValue(values[i]);
      const reportedAt = latest ? deviceReportedAt(latest) : null;
      result[pin] = latest && reportedAt ? { value: latest.value, updatedAt: reportedAt } : null;
    });
    const read: LastSeenResult = { exists: exists === 1, lastSeen: lastSeen || null, pins: result, pendingCommands };
    return { ...read, ...(alarmReadings ? { alarms: alarmReadings } : {}), ...(rulesVersion !== undefined ? { rulesVersion } : {}) };
  }

  return {
    /** Everything a fresh twin (never started, or lost) rebuilds itself from. */
    async bootstrapTwin({ deviceId }: { deviceId: string }): Promise<BootstrapResult> {
      const [exists, state, locks] = await Promise.all([
        redis.exists(keys.device(deviceId)),
        redis.hgetall(keys.deviceState(deviceId)),
        redis.hgetall(keys.deviceLocks(deviceId)),
      ]);
      const set = exists === 1 ? await readTwinRuleSet(redis, deviceId) : null;
      return { exists: exists === 1, mirror: snapshot(state), locks: parseLocks(locks), rules: [], ...set };
    },

    /** The rules that cover the device now, its heartbeat as set and the rules version (activities/rules.ts). */
    async loadTwinRules({ deviceId }: { deviceId: string }): Promise<RulesResult> {
      const set = await readTwinRuleSet(redis, deviceId);
      return set ? { exists: true, ...set } : { exists: false, rules: [] };
    },

    readLastSeen,

    /**
     * The liveness watch (docs/architecture.md, "Liveness"): one attempt per heartbeat period.
     * While the device is heard from (lastSeen, which the gateway moves on every message, within
     * the timeout) the attempt fails with a benign retryable failure whose retry delay is the time
     * until the new deadline, so the server's retry is the timer and no history event is written;
     * it returns when the device has been silent for the timeout, is gone, or, from the second
     * attempt on, has kept commands to deliver (the twin flushes them and starts a new watch).
     * Liveness follows workflows/twin/liveness.ts: this watch only waits out the deadline that
     * module decides by (common/liveness.ts), and the twin decides what the silence means.
     */
    async awaitSilence({ deviceId, projectId, heartbeatTimeoutS, since }: AwaitSilenceRequest): Promise<LastSeenResult> {
      const [seen, set] = await Promise.all([readLastSeen({ deviceId, projectId, pins: [] }), readHeartbeat(redis, deviceId)]);
      if (!seen.exists) return seen;
      const deadline = silenceDeadline(Date.parse(lastHeard(since, seen.lastSeen)), heartbeatTimeoutOf(set, heartbeatTimeoutS));
      const left = deadline - Date.now();
      if (left <= 0 || (seen.pendingCommands > 0 && Context.current().info.attempt > 1)) return seen;
      throw ApplicationFailure.create({
        message: 'device heard from within its heartbeat timeout',
        type: 'DEVICE_ALIVE',
        nextRetryDelay: left,
        category: 'BENIGN',
      });
    },

    /** Writes status, statusChangedAt and lastSeen; a change publishes its `device:status` in the same step (store/device-mirror.ts). */
    async writeStatus(req: WriteStatusRequest): Promise<WriteStatusResult> {
      const { written, lastSeen } = await writeStatus(redis, req);
      if (!written) logger.debug({ deviceId: req.deviceId }, 'status not mirrored: device is gone');
      if (!req.projectId) return { written, lastSeen };
      return { written, lastSeen, rulesVersion: await readRulesVersion(redis, req.projectId) };
    },

    async writeInfo({ deviceId, ...info }: WriteInfoRequest): Promise<{ written: boolean }> {
      const fields = Object.fromEntries(Object.entries(info).filter((e): e is [string, string] => typeof e[1] === 'string'));
      return { written: await writeInfo(redis, deviceId, fields) };
    },

    /** Mirrors a lock and drops any command kept for that pin: a locked pin takes no writes toward the device. */
    async writeLock({ deviceId, lock }: WriteLockRequest): Promise<{ written: boolean }> {
      return { written: await writeLock(redis, deviceId, lock) };
    },

    async deleteLock({ deviceId, pin }: DeleteLockRequest): Promise<{ deleted: boolean }> {
      return { deleted: (await redis.hdel(keys.deviceLocks(deviceId), pin)) === 1 };
    },
  };
}
