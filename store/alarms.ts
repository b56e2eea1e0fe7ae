import type { Alarm, AlarmSeverity } from '../common/contracts';
import { deviceEventRoute } from '../common/device-event-route';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import type { AlarmReading } from '../common/twin-activities';
import { luaScript } from './lua/load';

const CHANGE = luaScript('alarm-change-3');

/** What a raise records: the edge it comes from (a repeated hand-off of one edge is one raise). */
export interface AlarmRaise {
  edgeId: string;
  projectId: string;
  deviceId: string;
  ruleId: string;
  pin: string;
  severity: AlarmSeverity;
  value: string;
  at: string;
}

export interface AlarmChange {
  alarm: Alarm;
  /** False when the call found it already so (a repeated raise, acknowledge or clear). */
  changed: boolean;
}

export interface AlarmFilter {
  deviceId?: string;
  severity?: AlarmSeverity;
  state?: Alarm['state'];
}

/** An alarm's id: its device and rule, so one rule on one device has one alarm. */
export const alarmIdOf = (deviceId: string, ruleId: string): string => `${deviceId}.${ruleId}`;

const ID = /^([0-9a-f-]{36})\.([0-9a-f-]{36})$/i;
/** The device and rule an id names, or null when it names none. */
export function parseAlarmId(id: string): { deviceId: string; ruleId: string } | null {
  const m = ID.exec(id);
  return m ? { deviceId: m[1] as string, ruleId: m[2] as string } : null;
}

/** The stored record without what only the store uses. */
function toAlarm(json: string): Alarm {
  const { lastEdgeId: _edge, ...alarm } = JSON.parse(json) as Alarm & { lastEdgeId?: string };
  return alarm;
}

/**
 * Alarms (docs/alarms.md): one record per threshold rule and device, in `device:{id}:alarms`
 * (deleted with the device). Every change is one script (alarm-change-3.lua), which publishes its
 * `alarm` event in the same step.
 */
export function createAlarmStore(redis: Redis) {
  async function change(deviceId: string, ruleId: string, op: string, at: string, arg = ''): Promise<AlarmChange | null> {
    const reply = (await CHANGE(
      redis,
      [keys.device(deviceId), keys.deviceAlarms(deviceId), keys.deviceRuleState(deviceId)],
      [op, ruleId, at, arg, ...deviceEventRoute],
    )) as [string, number] | null;
    return reply ? { alarm: toAlarm(reply[0]), changed: Number(reply[1]) === 1 } : null;
  }

  return {
    /** Raises (or, when active, updates) the alarm of an edge; null when the device is gone. */
    raise(r: AlarmRaise): Promise<AlarmChange | null> {
      const first: Alarm & { lastEdgeId: string } = {
        id: alarmIdOf(r.deviceId, r.ruleId),
        projectId: r.projectId,
        deviceId: r.deviceId,
        ruleId: r.ruleId,
        pin: r.pin,
        severity: r.severity,
        state: 'active',
        acknowledged: false,
        value: r.value,
        raisedCount: 1,
        firstRaisedAt: r.at,
        lastRaisedAt: r.at,
        clearedAt: null,
        acknowledgedAt: null,
        acknowledgedBy: null,
        lastEdgeId: r.edgeId,
      };
      return change(r.deviceId, r.ruleId, 'raise', r.at, JSON.stringify(first));
    },

    /** Clears an active alarm; `byUser` also forgets the rule's edge state (the next value inside raises anew). */
    clear(deviceId: string, ruleId: string, at: string, byUser: boolean): Promise<AlarmChange | null> {
      return change(deviceId, ruleId, byUser ? 'clear-by-user' : 'clear', at);
    },

    acknowledge(deviceId: string, ruleId: string, userId: string, at: string): Promise<AlarmChange | null> {
      return change(deviceId, ruleId, 'acknowledge', at, userId);
    },

    async get(alarmId: string): Promise<Alarm | null> {
      const ids = parseAlarmId(alarmId);
      if (!ids) return null;
      const json = await redis.hget(keys.deviceAlarms(ids.deviceId), ids.ruleId);
      return json === null ? null : toAlarm(json);
    },

    /** The alarms of these projects' devices that match, most recently raised first. */
    async list(projectIds: string[], filter: AlarmFilter, page: number, limit: number): Promise<{ alarms: Alarm[]; total: number }> {
      const deviceIds = filter.deviceId
        ? [filter.deviceId]
        : (await Promise.all(projectIds.map((p) => redis.zrange(keys.projectDevices(p), '0', '-1')))).flat();
      const projects = new Set(projectIds);
      const stored = await Promise.all(deviceIds.map((d) => redis.hvals(keys.deviceAlarms(d))));
      const alarms = stored
        .flat()
        .map(toAlarm)
        .filter(
          (a) =>
            projects.has(a.projectId) &&
            (!filter.severity || a.severity === filter.severity) &&
            (!filter.state || a.state === filter.state),
        )
        .sort((a, b) => b.lastRaisedAt.localeCompare(a.lastRaisedAt) || a.id.localeCompare(b.id));
      return { alarms: alarms.slice((page - 1) * limit, page * limit), total: alarms.length };
    },

    /** What the twin's check-back reads of some rules' alarms: edge state and record. */
    async readings(deviceId: string, ruleIds: string[]): Promise<Record<string, AlarmReading>> {
      if (ruleIds.length === 0) return {};
      const [states, records] = await Promise.all([
        redis.hmget(keys.deviceRuleState(deviceId), ...ruleIds),
        redis.hmget(keys.deviceAlarms(deviceId), ...ruleIds),
      ]);
      return Object.fromEntries(
        ruleIds.map((ruleId, i) => {
          const json = records[i];
          const alarm = json ? toAlarm(json) : null;
          return [ruleId, { inside: states[i] === '1', active: alarm?.state === 'active', acknowledged: alarm?.acknowledged ?? false }];
        }),
      );
    },
  };
}

export type AlarmStore = ReturnType<typeof createAlarmStore>;
