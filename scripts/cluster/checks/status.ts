/**
 * Every device's status equals the truth within its heartbeat timeout + 2 s. The truth: a steady
 * device is online; the quiet one is offline once silent for the heartbeat timeout; the leaver is
 * offline from its Last Will. A sample (GET /devices, once a second through the balancer) counts
 * against a device when it differs from the truth more than timeout + 2 s after the device's last
 * change (a connection opened or closed, its silence, its leaving).
 */
import type { StatusSample } from '../load/app';
import type { DeviceRecord } from '../load/devices';
import { type Row, seconds } from './row';

function truth(device: DeviceRecord, at: number, heartbeatMs: number): 'online' | 'offline' {
  if (device.kind === 'quiet' && device.changedAt !== null && at >= device.lastAckAt + heartbeatMs) return 'offline';
  if (device.kind === 'leaver' && device.changedAt !== null && at >= device.changedAt) return 'offline';
  return 'online';
}

function lastChange(device: DeviceRecord, at: number): number {
  const changes = [
    ...device.connection.map((c) => c.at),
    ...(device.changedAt === null ? [] : [device.kind === 'quiet' ? device.lastAckAt : device.changedAt]),
  ].filter((t) => t <= at);
  return Math.max(0, ...changes);
}

export function statusRows(devices: DeviceRecord[], samples: StatusSample[], heartbeatS: number): Row[] {
  const heartbeatMs = heartbeatS * 1000;
  const window = heartbeatMs + 2000;
  const wrong: string[] = [];
  const settled: string[] = [];
  for (const device of devices) {
    const label = `${device.kind} ${device.id.slice(0, 8)}`;
    let firstWrong: { at: number; status: string; since: number } | null = null;
    let wrongCount = 0;
    for (const sample of samples) {
      const status = sample.statuses.get(device.id);
      if (status === undefined) continue;
      const since = lastChange(device, sample.at);
      if (sample.at - since <= window) continue;
      if (status !== truth(device, sample.at, heartbeatMs)) {
        wrongCount++;
        firstWrong ??= { at: sample.at, status, since };
      }
    }
    if (firstWrong)
      wrong.push(
        `${label} ${firstWrong.status} ${seconds(firstWrong.at - firstWrong.since)} after its last change (${wrongCount} samples)`,
      );
    if (device.kind !== 'steady' && device.changedAt !== null) {
      const from = device.kind === 'quiet' ? device.lastAckAt : device.changedAt;
      const offline = samples.find((s) => s.at >= from && s.statuses.get(device.id) === 'offline');
      const how = offline
        ? `${seconds(offline.at - from)} after ${device.kind === 'quiet' ? 'its last value' : 'leaving'} (${offline.reasons.get(device.id) ?? '?'})`
        : 'never seen';
      settled.push(`${device.kind} offline ${how}`);
    }
  }
  const figures = [
    `${devices.length} devices, ${samples.length} samples; limit heartbeat ${heartbeatS} s + 2 s;`,
    settled.join(', '),
    wrong.length ? `; wrong: ${wrong.join('; ')}` : '; every sample past the limit matched',
  ].join(' ');
  return [{ check: 'device status = truth', verdict: wrong.length ? 'FAIL' : 'ok', figures }];
}
