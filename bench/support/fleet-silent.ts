/**
 * bench/fleet-rules phase `silent`: a fleet of one template with a short heartbeat and a
 * project-wide `offline` rule; every device sends values over MQTT, then some stop. Each silent
 * device must be notified offline exactly once, within its timeout + 2 s of its last value, and no
 * other device at all. The silent devices are picked among those never online before the
 * heartbeat change; a fifth of those that were (the change phase's sample, whose twins' liveness
 * watches started at the old heartbeat and must start again at the new one) stop too, and are
 * shown on their own line.
 */
import { availableParallelism } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { MqttClient } from 'mqtt';
import { cpuMeter } from './cpu';
import { createRule, type Fleet, type FleetRun } from './fleet-setup';
import { spread, waitUntil } from './lanes';
import { machineCpuMeter } from './machine-cpu';
import { mirrorFields } from './mirror';
import { closeFleet, connectFleet } from './mqtt-fleet';
import { listNotifications } from './notifications';
import { printRows, summarize } from './stats';

export interface SilentOptions {
  silent: number;
  heartbeatS: number;
  /** Each device sends a value this often. */
  everyS: number;
  /** MQTT connections the devices' values go over (device i on connection i mod this). */
  connections: number;
}

/** The bound a silent device's notification is held to: its timeout, plus this. */
const BOUND_SLACK_MS = 2000;

/** Each device sends a value every `everyMs`, the fleet's sends spread evenly over the period; `stop` silences devices. */
function steadyValues(run: FleetRun, clients: readonly MqttClient[], ids: readonly string[], everyMs: number) {
  const t0 = Date.now();
  const slotMs = everyMs / ids.length;
  const lastSent = new Map<string, number>();
  const silenced = new Set<string>();
  const counts = { sent: 0, acked: 0, failed: 0 };
  let k = 0;
  const tick = setInterval(() => {
    const now = Date.now();
    for (; t0 + k * slotMs <= now; k++) {
      const i = k % ids.length;
      const id = ids[i] as string;
      if (silenced.has(id)) continue;
      lastSent.set(id, now);
      counts.sent += 1;
      (clients[i % clients.length] as MqttClient).publish(`${run.topicRoot}/${id}/pin/V1`, String(k % 1000), { qos: 1 }, (err) => {
        if (err) counts.failed += 1;
        else counts.acked += 1;
      });
    }
  }, 20);
  return {
    lastSent,
    counts,
    stop: (silent: Iterable<string>) => void [...silent].forEach((id) => silenced.add(id)),
    end: () => clearInterval(tick),
  };
}

/** Phase `silent`. */
export async function silentDevices(run: FleetRun, fleet: Fleet, options: SilentOptions): Promise<void> {
  fleet.offlineRuleId ??= await createRule(fleet.project, { condition: 'offline' });
  await fleet.project.call('PATCH', `/api/v1/templates/${fleet.templateId}`, { heartbeatTimeoutS: options.heartbeatS });
  const connections = Math.min(options.connections, fleet.ids.length);
  const c0 = Date.now();
  const clients = await connectFleet({
    url: run.backends.mqttUrl,
    username: run.backends.mqttUsername,
    password: run.backends.mqttPassword,
    count: connections,
    batch: 100,
  });
  run.cleanup.add('silent-phase connections', () => closeFleet(clients));
  const connectMs = Date.now() - c0;

  const before = new Set(fleet.onlineBefore);
  const silent = new Set(
    spread(
      fleet.ids.filter((id) => !before.has(id)),
      options.silent,
    ),
  );
  const stale = new Set(spread(fleet.onlineBefore, Math.ceil(fleet.onlineBefore.length / 5)));
  const others = fleet.ids.filter((id) => !silent.has(id) && !stale.has(id));
  const phaseStart = Date.now();
  const values = steadyValues(run, clients, fleet.ids, options.everyS * 1000);
  run.cleanup.add('silent-phase values', async () => values.end());
  const onlineMs = await waitUntil(
    'every device online, confirmed by its twin',
    async () => {
      const [status, ahead] = await Promise.all([
        mirrorFields(run.redis, fleet.ids, 'status'),
        mirrorFields(run.redis, fleet.ids, 'statusAhead'),
      ]);
      return status.every((s) => s === 'online') && ahead.every((a) => a === null);
    },
    run.limitMs,
    1000,
  );
  // Steady state: every twin's liveness watch is past its first attempt at the short timeout.
  await delay(options.heartbeatS * 1000);
  const silencedAt = Date.now();
  values.stop([...silent, ...stale]);
  const cpu = cpuMeter({
    temporal: run.backends.pids.temporal,
    worker: run.pids.worker,
    gateway: run.pids.gateway,
    redis: run.backends.pids.redis,
    mosquitto: run.backends.pids.mosquitto,
    bench: process.pid,
  });
  const machine = machineCpuMeter();

  // The window: until every silent device is notified, and at least three timeouts.
  const firstOf = new Map<string, number>();
  const minimumEnd = silencedAt + 3 * options.heartbeatS * 1000;
  const deadline = silencedAt + run.limitMs;
  while (Date.now() < deadline) {
    await delay(2000);
    firstOf.clear();
    for (const n of await listNotifications(fleet.project.call, fleet.project.projectId, 'device_status')) {
      const at = Date.parse(n.createdAt);
      if (n.deviceId !== null && at >= phaseStart && !firstOf.has(n.deviceId)) firstOf.set(n.deviceId, at);
    }
    if ([...silent].every((id) => firstOf.has(id)) && Date.now() >= minimumEnd) break;
  }
  const windowEnd = Date.now();
  const cpuLine = `${cpu.since()}; the machine ${machine.since().toFixed(0)} % of ${availableParallelism() * 100} %`;
  const othersStatus = await mirrorFields(run.redis, others, 'status');
  values.end();
  await closeFleet(clients);

  const perDevice = new Map<string, number[]>();
  for (const n of await listNotifications(fleet.project.call, fleet.project.projectId, 'device_status')) {
    const at = Date.parse(n.createdAt);
    if (n.deviceId === null || at < phaseStart || at > windowEnd) continue;
    perDevice.set(n.deviceId, [...(perDevice.get(n.deviceId) ?? []), at]);
  }
  const silentNotified = [...silent].filter((id) => perDevice.has(id));
  const duplicated = [...perDevice.values()].filter((times) => times.length > 1).length;
  const othersNotified = others.filter((id) => perDevice.has(id)).length;
  const staleNotified = [...stale].filter((id) => perDevice.has(id));
  const staleDelays = summarize(staleNotified.map((id) => Math.min(...(perDevice.get(id) as number[])) - (values.lastSent.get(id) ?? NaN)));
  const delays = silentNotified.map((id) => Math.min(...(perDevice.get(id) as number[])) - (values.lastSent.get(id) ?? NaN));
  const bound = options.heartbeatS * 1000 + BOUND_SLACK_MS;
  const d = summarize(delays);
  const s = (msValue: number): string => `${(msValue / 1000).toFixed(1)} s`;
  printRows(
    `\nSilent devices: ${fleet.ids.length} devices of one template (heartbeat ${options.heartbeatS} s), a value every ${options.everyS} s each, ` +
      `a project-wide offline rule; ${silent.size} stop (and ${stale.size} that were online before the heartbeat change)`,
    [
      ['MQTT connections', `${connections} (device i on connection i mod ${connections}), opened in ${s(connectMs)}`],
      ['all online, twins confirmed', `${s(onlineMs)} after the first values`],
      [
        'values sent',
        `${values.counts.sent} (${values.counts.acked} acknowledged, ${values.counts.failed} failed) in ${s(windowEnd - phaseStart)}`,
      ],
      ['window', `${s(windowEnd - silencedAt)} from the silence (at least 3 timeouts)`],
      ['CPU in the window, % of a core', cpuLine],
      [
        'offline notifications, silent devices',
        `${silentNotified.length} of ${silent.size} notified; ${duplicated} devices notified more than once`,
      ],
      [
        'offline notifications, the others',
        `${othersNotified} of ${others.length} (want 0); mirror shows ${othersStatus.filter((st) => st !== 'online').length} of them not online at the end`,
      ],
      [
        'silent, online before the change',
        stale.size === 0
          ? 'none (no device was online before the heartbeat change)'
          : `${staleNotified.length} of ${stale.size} notified (want all: a shorter heartbeat starts their liveness watches again, docs/fleet.md); last value → notification max ${s(staleDelays.max)}`,
      ],
      [
        'last value → notification',
        `p50 ${s(d.p50)}, p99 ${s(d.p99)}, max ${s(d.max)} (n=${d.count}); bound timeout + 2 s = ${s(bound)}: ${delays.filter((v) => v > bound).length} over it`,
      ],
    ],
  );
}
