/**
 * bench/fleet-rules phase `cpu`: the gateway's CPU per value for a device covered by many scoped
 * threshold rules that are all judged and never fire, beside the same device with one such rule
 * (the baseline), with as many device rules, and with none. Each configuration is its own project
 * with one device; the configurations take turns in `rounds` slices, so drift on the machine
 * weighs on each alike.
 */
import { createDevices, createProjectOf, type BenchAccount } from './api';
import { cpuSeconds, waitForQuiet } from './cpu';
import { createRule, type FleetRun } from './fleet-setup';
import { pool } from './lanes';
import { closeFleet, connectFleet } from './mqtt-fleet';
import { listNotifications } from './notifications';
import { publishPaced } from './paced-publish';
import { bridgeCounters } from './service-metrics';
import { settle } from './settle';
import { printTable, ratio } from './stats';

export interface CpuOptions {
  /** Values per configuration, all rounds together. */
  values: number;
  /** Values a second while sending. */
  rate: number;
  /** Rules of the many-rules configurations. */
  rules: number;
  rounds: number;
}

/** Above any value sent (the payload is the send time in epoch ms): every rule is judged, none fires. */
const NEVER_REACHED = 1e15;

interface Setup {
  label: string;
  project: BenchAccount;
  topic: string;
  values: number;
  handled: number;
  gatewayS: number;
  redisS: number;
}

async function setUp(run: FleetRun, label: string, rules: number, scope: 'project' | 'device'): Promise<Setup> {
  const project = await createProjectOf(run.account, `cpu ${label}`);
  const [deviceId] = await createDevices(project, 1);
  const id = deviceId as string;
  const rule = { condition: 'gt', pin: 1, threshold: NEVER_REACHED, ...(scope === 'device' ? { deviceId: id } : {}) };
  await pool(
    Array.from({ length: rules }, (_, i) => i),
    run.lanes,
    () => createRule(project, rule),
  );
  return { label, project, topic: `${run.topicRoot}/${id}/pin/V1`, values: 0, handled: 0, gatewayS: 0, redisS: 0 };
}

/** Phase `cpu`. */
export async function ingestCpu(run: FleetRun, options: CpuOptions): Promise<void> {
  const setups = [
    await setUp(run, 'no rule', 0, 'project'),
    await setUp(run, '1 project rule (baseline)', 1, 'project'),
    await setUp(run, `${options.rules} project rules`, options.rules, 'project'),
    await setUp(run, `${options.rules} device rules`, options.rules, 'device'),
  ];
  const clients = await connectFleet({
    url: run.backends.mqttUrl,
    username: run.backends.mqttUsername,
    password: run.backends.mqttPassword,
    count: 1,
  });
  run.cleanup.add('cpu publisher', () => closeFleet(clients));
  const slice = Math.max(1, Math.round(options.values / options.rounds));
  // Warm-up, not measured: each device online, each node's rule cache loaded, the code paths hot.
  for (const setup of setups) await publishPaced(clients, [setup.topic], options.rate, Math.min(2, slice / options.rate));
  for (let round = 0; round < options.rounds; round++) {
    for (const setup of setups) {
      await waitForQuiet([run.pids.gateway, run.backends.pids.redis, run.pids.worker], 10, 60_000, [], 2);
      const before = (await bridgeCounters(run.metricsUrl)).handled;
      const gateway0 = cpuSeconds(run.pids.gateway);
      const redis0 = cpuSeconds(run.backends.pids.redis);
      const sent = await publishPaced(clients, [setup.topic], options.rate, slice / options.rate);
      const handled = await settle(async () => (await bridgeCounters(run.metricsUrl)).handled - before, sent.acked, 2000, 60_000);
      setup.gatewayS += cpuSeconds(run.pids.gateway) - gateway0;
      setup.redisS += cpuSeconds(run.backends.pids.redis) - redis0;
      setup.values += sent.acked;
      setup.handled += handled;
    }
  }
  await closeFleet(clients);
  const fired = await Promise.all(
    setups.map(async (s) => (await listNotifications(s.project.call, s.project.projectId, 'threshold')).length),
  );
  const perThousand = (seconds: number, values: number): number => (seconds * 1_000_000) / Math.max(1, values);
  const baseline = setups[1] as Setup;
  const baselineMs = perThousand(baseline.gatewayS, baseline.values);
  const baselineRedisMs = perThousand(baseline.redisS, baseline.values);
  process.stdout.write(
    `\nIngest CPU per value: one device, V1 values over MQTT at ${options.rate}/s, ${options.values} per row in ${options.rounds} turns; ` +
      `every rule gt ${NEVER_REACHED} on V1 (judged, never fires)\n`,
  );
  printTable(
    [
      'rules covering the device',
      'values',
      'gateway CPU per 1,000 values',
      '÷ 1 rule',
      'Redis CPU per 1,000 values',
      '÷ 1 rule',
      'notifications',
    ],
    setups.map((s, i) => [
      s.label,
      s.handled === s.values ? String(s.values) : `${s.handled} of ${s.values} handled`,
      `${perThousand(s.gatewayS, s.values).toFixed(0)} ms`,
      ratio(perThousand(s.gatewayS, s.values), baselineMs),
      `${perThousand(s.redisS, s.values).toFixed(0)} ms`,
      ratio(perThousand(s.redisS, s.values), baselineRedisMs),
      String(fired[i]),
    ]),
  );
}
