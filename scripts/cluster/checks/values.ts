/**
 * Every V1 value the broker acknowledged to a device is stored exactly once. Read from the pin's
 * history through the API (GET /api/v1/data/{id}/1, raw, through the balancer): what an app reads,
 * after the persisters wrote PostgreSQL (the read waits for the history stream itself). Values are
 * numbered per device, so a value read twice was stored twice.
 */
import type { Api } from '../load/api';
import type { DeviceRecord } from '../load/devices';
import { sleep } from '../wait';
import { type Row, seconds } from './row';

export interface StoredPoint {
  timestamp: string;
  value: number;
}

/** A pin's raw history through the API, oldest first (the order the service stored it in); null when the read failed. */
export async function readPin(api: Api, deviceId: string, pin: number, from: number): Promise<StoredPoint[] | null> {
  const to = new Date(Date.now() + 60_000).toISOString();
  const path = `/data/${deviceId}/${pin}?from=${new Date(from - 60_000).toISOString()}&to=${to}&limit=100000`;
  try {
    const answer = await api.call<{ points: StoredPoint[] }>('GET', path, undefined, undefined, 10_000);
    return answer.status === 200 && answer.body?.data ? answer.body.data.points : null;
  } catch {
    return null;
  }
}

async function storedCounts(api: Api, device: DeviceRecord, from: number): Promise<Map<number, number> | null> {
  const points = await readPin(api, device.id, 1, from);
  if (!points) return null;
  const counts = new Map<number, number>();
  for (const p of points) counts.set(p.value, (counts.get(p.value) ?? 0) + 1);
  return counts;
}

function acked(device: DeviceRecord): number[] {
  return [...device.v1.entries()].filter(([, s]) => s.ackedAt !== null).map(([v]) => v);
}

/**
 * Reads every device's history until each acknowledged value is there, or nothing new came for
 * `quietMs` (what is missing then stays missing), at most `capMs`.
 */
export async function drainHistory(
  api: Api,
  devices: DeviceRecord[],
  from: number,
  quietMs = 15_000,
  capMs = 120_000,
): Promise<Map<string, Map<number, number>>> {
  const started = Date.now();
  let lastProgress = Date.now();
  let lastTotal = -1;
  const stored = new Map<string, Map<number, number>>();
  for (;;) {
    for (const device of devices) {
      const counts = await storedCounts(api, device, from);
      if (counts) stored.set(device.id, counts);
    }
    const complete = devices.every((d) => {
      const counts = stored.get(d.id);
      return counts !== undefined && acked(d).every((v) => counts.has(v));
    });
    const total = [...stored.values()].reduce((sum, c) => sum + c.size, 0);
    if (total !== lastTotal) (lastTotal = total), (lastProgress = Date.now());
    if (complete || Date.now() - lastProgress > quietMs || Date.now() - started > capMs) return stored;
    await sleep(2000);
  }
}

/** `+a … +b s` of times relative to the fault: when the missing values were sent, and when the broker acknowledged them. */
function spanAfter(faultAt: number, times: number[]): string {
  const rel = (t: number): string => `${t >= faultAt ? '+' : '−'}${seconds(Math.abs(t - faultAt))}`;
  return times.length ? `${rel(Math.min(...times))} … ${rel(Math.max(...times))}` : '–';
}

export function valueRows(devices: DeviceRecord[], stored: Map<string, Map<number, number>>, drainMs: number, faultAt: number): Row[] {
  let ackedTotal = 0;
  let once = 0;
  let missing = 0;
  const missingSent: number[] = [];
  const missingAcked: number[] = [];
  let unread = 0;
  let notAcked = 0;
  const twice: string[] = [];
  let twiceValues = 0;
  let extraPoints = 0;
  let resentTwice = 0;
  for (const device of devices) {
    const counts = stored.get(device.id);
    if (!counts) {
      unread++;
      continue;
    }
    let deviceTwice = 0;
    for (const [value, sent] of device.v1) {
      const n = counts.get(value) ?? 0;
      if (sent.ackedAt === null) {
        if (n > 0) notAcked++;
        continue;
      }
      ackedTotal++;
      if (n === 0) {
        missing++;
        missingSent.push(sent.publishedAt);
        missingAcked.push(sent.ackedAt);
      } else if (n === 1) once++;
      else if (sent.crossedReconnect) resentTwice++;
      else {
        deviceTwice++;
        twiceValues++;
        extraPoints += n - 1;
      }
    }
    if (deviceTwice) twice.push(`${device.kind} ${device.id.slice(0, 8)}: ${deviceTwice}`);
  }
  const ok = missing === 0 && twiceValues === 0 && unread === 0;
  const figures = [
    `${ackedTotal} acknowledged on ${devices.length} devices; stored once ${once}; stored twice or more ${twiceValues} (+${extraPoints} points)${twice.length ? ` [${twice.join(', ')}]` : ''};`,
    `missing ${missing}${missing ? ` (sent ${spanAfter(faultAt, missingSent)}, acknowledged ${spanAfter(faultAt, missingAcked)} from the fault)` : ''}${unread ? `; history unreadable for ${unread} devices` : ''};`,
    `sent again by the device after a reconnect and stored twice ${resentTwice} (MQTT QoS 1, not counted);`,
    `stored though never acknowledged ${notAcked}; drained in ${seconds(drainMs)}`,
  ].join(' ');
  return [{ check: 'values stored exactly once', verdict: ok ? 'ok' : 'FAIL', figures }];
}
