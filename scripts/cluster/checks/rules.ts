/**
 * No alarm or notification duplicated. What the rules should have done follows from the order the
 * service stored V2 and V3 in (PostgreSQL, by the stream entry id each store step took): the
 * broker acknowledges a device's value when it has it, and a value held in a killed node's session
 * (or retried by a node cut from Redis) is handled after the ones behind it, so the device's own
 * order is not the service's.
 *   threshold (V2 > 500, "high {value}"): each high value stored right after a low one is one
 *     raise of the device's alarm (its `raisedCount`) and one notification naming that value;
 *   no_data (V3, 4 s, "silent after {value}"): each silence after a stored V3 value longer than
 *     the rule's duration + 3 s is one notification naming that value; one between the duration
 *     - 1 s and + 3 s may or may not fire.
 * A notification whose (device, message) repeats is a duplicate; an alarm raised more often than
 * there are distinct values that crossed is a duplicated raise (a value stored twice that crosses
 * twice is still one crossing of the device's).
 */
import type { Alarm, NotificationRecord } from '../../../common/contracts';
import type { Api } from '../load/api';
import { BURSTS, type DeviceRecord, WAVE } from '../load/devices';
import { Client } from 'pg';
import type { StoredPoint } from './values';
import type { RuleIds } from '../load/load';
import type { Row } from './row';

export async function readAlarms(api: Api, projectId: string): Promise<Alarm[]> {
  return (await api.must<{ alarms: Alarm[] }>('GET', `/alarms?projectId=${projectId}&limit=100`, undefined, 200)).alarms;
}

export async function readNotifications(api: Api, projectId: string): Promise<NotificationRecord[]> {
  const all: NotificationRecord[] = [];
  for (let page = 1; page <= 100; page++) {
    const data = await api.must<{ notifications: NotificationRecord[]; total: number }>(
      'GET',
      `/notifications?projectId=${projectId}&limit=100&page=${page}`,
      undefined,
      200,
    );
    all.push(...data.notifications);
    if (all.length >= data.total || data.notifications.length === 0) break;
  }
  return all;
}

/** The pins the rules watch, as stored: V2 (threshold) and V3 (no_data). */
export interface RulePins {
  wave: StoredPoint[];
  bursts: StoredPoint[];
}

/**
 * V2 and V3 of every device with rules, from PostgreSQL in the order the store steps ran (`seq`
 * is the history stream's entry id, taken in the step: docs/architecture.md "History"), with the
 * time each value came in (`ts`, what the twin's no_data timer counts from). The API orders by
 * `ts`, which a value retried through an outage keeps from its first try.
 */
export async function readRulePins(databaseUrl: string, deviceIds: string[]): Promise<Map<string, RulePins>> {
  const out = new Map<string, RulePins>();
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    for (const deviceId of deviceIds) {
      const { rows } = await client.query<{ pin: string; num: number | null; ts: Date }>(
        "SELECT pin, num, ts FROM points WHERE device_id = $1 AND pin IN ('V2', 'V3') ORDER BY seq",
        [deviceId],
      );
      const of = (pin: string): StoredPoint[] =>
        rows.filter((r) => r.pin === pin && r.num !== null).map((r) => ({ timestamp: r.ts.toISOString(), value: r.num as number }));
      out.set(deviceId, { wave: of('V2'), bursts: of('V3') });
    }
  } finally {
    await client.end().catch(() => undefined);
  }
  return out;
}

/** The distinct high values that crossed, in stored order. */
function expectedRaises(points: StoredPoint[]): number[] {
  const highs = new Set<number>();
  let previousHigh = false;
  for (const { value } of points) {
    const high = value > WAVE.threshold;
    if (high && !previousHigh) highs.add(value);
    previousHigh = high;
  }
  return [...highs];
}

function silences(points: StoredPoint[], until: number): { expected: number[]; optional: Set<number> } {
  const expected: number[] = [];
  const optional = new Set<number>();
  const duration = BURSTS.noDataS * 1000;
  const at = (p: StoredPoint | undefined): number => (p ? Date.parse(p.timestamp) : until);
  points.forEach((point, i) => {
    const value = point.value;
    const gap = at(points[i + 1]) - at(point);
    if (gap >= duration + 3000) expected.push(value);
    else if (gap >= duration - 1000) optional.add(value);
  });
  return { expected, optional };
}

function count<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

export function ruleRows(
  devices: DeviceRecord[],
  rules: Map<string, RuleIds>,
  stored: Map<string, RulePins>,
  alarms: Alarm[],
  notifications: NotificationRecord[],
  checkedAt: number,
): Row[] {
  const withRules = devices.filter((d) => rules.has(d.id) && stored.has(d.id));
  const unread = devices.filter((d) => rules.has(d.id) && !stored.has(d.id)).length;
  const pins = (d: DeviceRecord): RulePins => stored.get(d.id) as RulePins;
  let crossings = 0;
  let raised = 0;
  const dupRaises: string[] = [];
  const fewerRaises: string[] = [];
  let records = 0;
  for (const device of withRules) {
    const ids = rules.get(device.id) as RuleIds;
    const expected = expectedRaises(pins(device).wave).length;
    crossings += expected;
    const mine = alarms.filter((a) => a.deviceId === device.id && a.ruleId === ids.threshold);
    records += mine.length;
    const got = mine.reduce((sum, a) => sum + a.raisedCount, 0);
    raised += got;
    if (mine.length > 1) dupRaises.push(`${device.id.slice(0, 8)}: ${mine.length} records`);
    if (got > expected) dupRaises.push(`${device.id.slice(0, 8)}: raised ${got} for ${expected} crossings`);
    if (got < expected) fewerRaises.push(`${device.id.slice(0, 8)}: ${got}/${expected}`);
  }
  const alarmRow: Row = {
    check: 'alarms not duplicated',
    verdict: dupRaises.length ? 'FAIL' : fewerRaises.length ? 'warn' : 'ok',
    figures:
      `${records} alarm records for ${withRules.length} threshold rules${unread ? ` (${unread} devices' history unreadable)` : ''}; raised ${raised} times for ${crossings} crossings stored` +
      `${dupRaises.length ? `; duplicated: ${dupRaises.join(', ')}` : ''}${fewerRaises.length ? `; raised fewer times than crossed: ${fewerRaises.join(', ')}` : ''}`,
  };

  const rows: Row[] = [alarmRow];
  for (const kind of ['threshold', 'no_data'] as const) {
    let expectedTotal = 0;
    let got = 0;
    const dups: string[] = [];
    const missing: string[] = [];
    const extra: string[] = [];
    for (const device of withRules) {
      const ids = rules.get(device.id) as RuleIds;
      const ruleId = kind === 'threshold' ? ids.threshold : ids.noData;
      const prefix = kind === 'threshold' ? 'high ' : 'silent after ';
      const mine = notifications.filter((n) => n.deviceId === device.id && n.ruleId === ruleId);
      got += mine.length;
      const counts = count(mine, (n) => n.message);
      for (const [message, n] of counts) if (n > 1) dups.push(`${device.id.slice(0, 8)} "${message}" ×${n}`);
      const { expected, optional } =
        kind === 'threshold'
          ? { expected: expectedRaises(pins(device).wave), optional: new Set<number>() }
          : silences(pins(device).bursts, checkedAt);
      expectedTotal += expected.length;
      for (const value of expected) if (!counts.has(`${prefix}${value}`)) missing.push(`${device.id.slice(0, 8)} ${value}`);
      const allowed = new Set([...expected, ...optional].map((v) => `${prefix}${v}`));
      for (const message of counts.keys()) if (!allowed.has(message)) extra.push(`${device.id.slice(0, 8)} "${message}"`);
    }
    const list = (label: string, items: string[]): string =>
      items.length ? `; ${label} ${items.length}: ${items.slice(0, 6).join(', ')}${items.length > 6 ? ' …' : ''}` : '';
    rows.push({
      check: `${kind} notifications not duplicated`,
      verdict: dups.length ? 'FAIL' : missing.length || extra.length ? 'warn' : 'ok',
      figures: `${got} notifications for ${expectedTotal} expected${list('duplicated', dups)}${list('missing', missing)}${list('unexpected', extra)}`,
    });
  }
  return rows;
}
