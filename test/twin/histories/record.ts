/**
 * Records real twin runs for the replay test (`npm run record:twin-histories`, not part of
 * `npm test`): each scenario drives one twin on the harness's real servers through a kind of
 * transition, then its history is written to `test/twin/histories/<scenario>.json`.
 * Recorded histories are never rewritten by hand: a workflow change must replay every one of
 * them (see docs/workflow-versioning.md).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findTemporalCli } from '../../../scripts/temporal-cli';
import { notificationWorkflowId, twinWorkflowId, type NotificationRecord } from '../../../common/contracts';
import { deliverNotification } from '../../../workflows/notification-delivery';
import { writeStatusAhead } from '../../../store/device-mirror';
import {
  addRule,
  commandSubscriber,
  createDevice,
  createTwinTestEnv,
  deviceMessage,
  eventually,
  keepCommand,
  mirror,
  notificationsOf,
  type TwinTestEnv,
} from '../helpers';
import { keys } from '../../../common/redis-keys';

let env: TwinTestEnv;

beforeAll(async () => {
  env = await createTwinTestEnv('record', 2);
});

afterAll(async () => {
  await env?.cleanup();
});

/** The latest run's history of a workflow as the Temporal CLI prints it: the JSON the SDK's replayer reads. */
async function saveWorkflow(name: string, workflowId: string): Promise<void> {
  const cli = findTemporalCli();
  if (!cli || !env.config.TEMPORAL_ADDRESS) throw new Error('no Temporal CLI or address');
  const args = ['workflow', 'show', '--address', env.config.TEMPORAL_ADDRESS, '-w', workflowId, '--output', 'json'];
  const { stdout } = await promisify(execFile)(cli, args, { maxBuffer: 64 * 1024 * 1024 });
  await writeFile(join(__dirname, `${name}.json`), stdout);
}

/** The latest run of a device's twin. */
const save = (name: string, deviceId: string): Promise<void> => saveWorkflow(name, twinWorkflowId(deviceId));

/** Ends a device's twin, waits for its last run to complete, and saves that run's history. */
async function endAndSave(name: string, deviceId: string): Promise<void> {
  await env.twins.end(deviceId);
  await env.client.workflow.getHandle(twinWorkflowId(deviceId)).result();
  await save(name, deviceId);
}

const iso = (offsetMs = 0): string => new Date(Date.now() + offsetMs).toISOString();

/** A threshold rule's alarm edge on V1 as the gateway sends it (already notified), re-notified every `renotifySeconds`. */
const thresholdEdge = (ruleId: string, edge: 'raise' | 'clear', at: string, renotifySeconds: number | null) => ({
  edgeId: randomUUID(),
  edge,
  ruleId,
  pin: 'V1',
  value: edge === 'raise' ? '90' : '10',
  at,
  severity: 'major' as const,
  forSeconds: 0,
  renotifySeconds,
  escalate: null,
  channels: ['inApp' as const],
  title: 'Threshold: V1 gt 50',
  message: 'hot',
  notified: true,
});

test('online by activity, offline by heartbeat timeout, with status rules', async () => {
  const device = await createDevice(env.redis);
  await addRule(env.redis, device, { condition: 'offline', message: 'went {value}' });
  await addRule(env.redis, device, { condition: 'online', message: 'back {value}' });
  const at = new Date();
  await deviceMessage(env.redis, device.deviceId, 'V1', '1', at);
  await env.twins.activity(device.deviceId, device.projectId, at.toISOString(), 'V1');
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('online'));
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'), 10_000);
  await eventually(async () => expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(2));
  await endAndSave('heartbeat-timeout', device.deviceId);
});

test('status messages, info and a stale offline', async () => {
  const device = await createDevice(env.redis);
  await env.twins.status(device.deviceId, device.projectId, 'online', iso());
  await env.twins.info(device.deviceId, device.projectId, { firmwareVersion: '1.2.3', ipAddress: '10.0.0.7', at: iso() });
  await env.twins.status(device.deviceId, device.projectId, 'offline', iso(-60_000));
  await env.twins.status(device.deviceId, device.projectId, 'offline', iso(1));
  await eventually(async () => expect((await env.twins.state(device.deviceId))?.status).toBe('offline'));
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).firmwareVersion).toBe('1.2.3'));
  await endAndSave('status-and-info', device.deviceId);
});

test('locks and unlocks, by widget and by user', async () => {
  const device = await createDevice(env.redis);
  await env.twins.lock(device.deviceId, device.projectId, 'V7', 'widget-1');
  await env.twins.lock(device.deviceId, device.projectId, 'V7', null);
  await env.twins.lock(device.deviceId, device.projectId, 'D3', null);
  await env.twins.unlock(device.deviceId, device.projectId, 'V7', 'widget-2');
  await env.twins.unlock(device.deviceId, device.projectId, 'V7', 'widget-1');
  await env.twins.unlock(device.deviceId, device.projectId, 'D3');
  await env.twins.unlock(device.deviceId, device.projectId, 'D3');
  await endAndSave('locks', device.deviceId);
});

test('no_data fires once per silence and re-arms, rules reloaded on the way', async () => {
  const device = await createDevice(env.redis);
  await addRule(env.redis, device, { condition: 'no_data', pin: 3, duration: 1, message: 'silent {value}' });
  await deviceMessage(env.redis, device.deviceId, 'V3', '21.5');
  await env.twins.start(device.deviceId, device.projectId);
  await eventually(async () => expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(1), 8000);
  await deviceMessage(env.redis, device.deviceId, 'V3', '22');
  await eventually(async () => expect((await env.twins.state(device.deviceId))?.noData[0]?.fired).toBe(false), 8000);
  await addRule(env.redis, device, { condition: 'no_data', pin: null, duration: 1 });
  await env.twins.rulesChanged(device.deviceId, device.projectId);
  await eventually(async () => expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(3), 8000);
  await endAndSave('no-data', device.deviceId);
});

test('commands kept while offline are flushed on reconnect', async () => {
  const device = await createDevice(env.redis);
  const subscriber = await commandSubscriber(env.config, device.deviceId);
  try {
    await keepCommand(env.redis, device.deviceId, 'V5', 'newest');
    await keepCommand(env.redis, device.deviceId, 'D1', '1');
    await env.twins.start(device.deviceId, device.projectId);
    await env.twins.status(device.deviceId, device.projectId, 'online', iso());
    await eventually(() => expect(subscriber.messages).toHaveLength(2));
    await keepCommand(env.redis, device.deviceId, 'V6', 'later');
    await env.twins.lock(device.deviceId, device.projectId, 'V6', null);
    await endAndSave('command-flush', device.deviceId);
  } finally {
    await subscriber.close();
  }
});

test('a twin whose device hash is gone ends itself', async () => {
  const device = await createDevice(env.redis);
  await env.twins.start(device.deviceId, device.projectId);
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'));
  await env.redis.del(keys.device(device.deviceId));
  await env.twins.status(device.deviceId, device.projectId, 'online', iso());
  await env.client.workflow.getHandle(twinWorkflowId(device.deviceId)).result();
  await save('orphan', device.deviceId);
}, 30_000);

test('a run that continued as new carries its state', async () => {
  const device = await createDevice(env.redis);
  await env.twins.lock(device.deviceId, device.projectId, 'V9', null);
  await addRule(env.redis, device, { condition: 'offline' });
  await env.twins.rulesChanged(device.deviceId, device.projectId);
  const at = iso();
  await deviceMessage(env.redis, device.deviceId, 'V1', '1');
  for (let sent = 0; sent < 2100; sent += 100) {
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => env.twins.activity(device.deviceId, device.projectId, at, `V${(sent + i) % 200}`)),
    );
  }
  await eventually(async () => expect((await env.twins.state(device.deviceId))?.stats.runs).toBe(2), 20_000);
  await env.twins.status(device.deviceId, device.projectId, 'offline', iso(1));
  await endAndSave('continued-as-new', device.deviceId);
}, 60_000);

test('alarm edges with re-notify, a status hold, a disconnect by Last Will (issue 17)', async () => {
  const device = await createDevice(env.redis);
  await addRule(env.redis, device, { condition: 'offline', forSeconds: 1, message: 'gone {value}' });
  const ruleId = randomUUID();
  const alarm = async () => JSON.parse((await env.redis.hget(keys.deviceAlarms(device.deviceId), ruleId)) ?? 'null') as { state: string } | null;
  await env.redis.hset(keys.deviceRuleState(device.deviceId), ruleId, '1');
  await env.twins.alarmEdge(device.deviceId, device.projectId, thresholdEdge(ruleId, 'raise', iso(), 1));
  await eventually(async () => expect(await alarm()).toMatchObject({ state: 'active' }));
  // One re-notification after a second, then the clear edge.
  await eventually(async () => expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(1), 10_000);
  await env.twins.alarmEdge(device.deviceId, device.projectId, thresholdEdge(ruleId, 'clear', iso(1), 1));
  await eventually(async () => expect(await alarm()).toMatchObject({ state: 'cleared' }));

  await env.twins.status(device.deviceId, device.projectId, 'online', iso());
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('online'));
  await env.twins.status(device.deviceId, device.projectId, 'offline', iso(1), 'last will');
  await eventually(async () => expect(await env.redis.hget(keys.deviceState(device.deviceId), 'disconnectReason')).toBe('last will'));
  await eventually(async () => expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(2), 10_000);
  await endAndSave('alarms-and-status-holds', device.deviceId);
});

test('online written ahead, kept online by data through the liveness watch, offline by silence (issue 14)', async () => {
  const device = await createDevice(env.redis);
  await addRule(env.redis, device, { condition: 'offline', message: 'went {value}' });
  await addRule(env.redis, device, { condition: 'online', message: 'back {value}' });
  const at = iso();
  // What the gateway and its outbox relay do (gateway/temporal/status-ahead.ts): the mirror first, then the twin's signal.
  await writeStatusAhead(env.redis, { deviceId: device.deviceId, at, outbox: `record-outbox-${device.deviceId}` });
  await env.twins.activity(device.deviceId, device.projectId, at, undefined, { ahead: true });
  await eventually(async () => expect(await env.redis.hget(keys.deviceState(device.deviceId), 'statusAhead')).toBeNull());
  // Data for two heartbeat timeouts (2 s): the watch retries, the twin stays online.
  for (let i = 0; i < 8; i++) {
    await deviceMessage(env.redis, device.deviceId, 'V1', String(i));
    await new Promise((r) => setTimeout(r, 500));
  }
  expect((await mirror(env.redis, device.deviceId)).status).toBe('online');
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'), 10_000);
  await eventually(async () => expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(2));
  await endAndSave('liveness-watch', device.deviceId);
}, 60_000);

test('every step as a local activity: start with kept commands, info, locks, rules, an alarm, offline by silence (issue 14)', async () => {
  const device = await createDevice(env.redis);
  const subscriber = await commandSubscriber(env.config, device.deviceId);
  try {
    await addRule(env.redis, device, { condition: 'offline', message: 'went {value}' });
    await keepCommand(env.redis, device.deviceId, 'V5', 'kept');
    const at = iso();
    await writeStatusAhead(env.redis, { deviceId: device.deviceId, at, outbox: `record-outbox-${device.deviceId}` });
    await env.twins.activity(device.deviceId, device.projectId, at, undefined, { ahead: true });
    await eventually(() => expect(subscriber.messages).toHaveLength(1));
    await env.twins.info(device.deviceId, device.projectId, { firmwareVersion: '2.0.0', at: iso() });
    await env.twins.lock(device.deviceId, device.projectId, 'V7', 'widget-1');
    await env.twins.unlock(device.deviceId, device.projectId, 'V7', 'widget-1');
    await addRule(env.redis, device, { condition: 'online', message: 'back {value}' });
    await env.twins.rulesChanged(device.deviceId, device.projectId);
    const ruleId = randomUUID();
    await env.redis.hset(keys.deviceRuleState(device.deviceId), ruleId, '1');
    await env.twins.alarmEdge(device.deviceId, device.projectId, thresholdEdge(ruleId, 'raise', iso(), null));
    await eventually(async () => expect(await env.redis.hget(keys.deviceAlarms(device.deviceId), ruleId)).toContain('"active"'));
    await env.redis.hset(keys.deviceRuleState(device.deviceId), ruleId, '0');
    await env.twins.alarmEdge(device.deviceId, device.projectId, thresholdEdge(ruleId, 'clear', iso(), null));
    await eventually(async () => expect(await env.redis.hget(keys.deviceAlarms(device.deviceId), ruleId)).toContain('"cleared"'));
    expect((await mirror(env.redis, device.deviceId)).firmwareVersion).toBe('2.0.0');
    await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'), 10_000);
    await eventually(async () => expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(1));
    await endAndSave('local-steps', device.deviceId);
  } finally {
    await subscriber.close();
  }
}, 60_000);

test('a heartbeat shortened while the liveness watch waits starts the watch again (issue 38)', async () => {
  const device = await createDevice(env.redis);
  await env.redis.hset(keys.device(device.deviceId), 'heartbeatTimeoutS', '600');
  const at = iso();
  await writeStatusAhead(env.redis, { deviceId: device.deviceId, at, outbox: `record-outbox-${device.deviceId}` });
  await env.twins.activity(device.deviceId, device.projectId, at, undefined, { ahead: true });
  await eventually(async () => expect(await env.twins.state(device.deviceId)).toMatchObject({ status: 'online', heartbeatTimeoutS: 600 }));
  await env.redis.hset(keys.device(device.deviceId), 'heartbeatTimeoutS', '1');
  await env.twins.rulesChanged(device.deviceId, device.projectId);
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'), 10_000);
  await endAndSave('heartbeat-rewatch', device.deviceId);
}, 60_000);

test('a notification delivered: stored with its in-app event, then email and push', async () => {
  const device = await createDevice(env.redis);
  const record: NotificationRecord = {
    id: randomUUID(),
    projectId: device.projectId,
    deviceId: device.deviceId,
    ruleId: null,
    type: 'device_status',
    title: 'Device offline',
    message: 'went offline',
    priority: 'high',
    channels: ['inApp', 'email', 'push'],
    read: false,
    createdAt: iso(),
  };
  const workflowId = notificationWorkflowId(record.id);
  await env.client.workflow.execute(deliverNotification, { taskQueue: env.taskQueue, workflowId, args: [record] });
  expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(1);
  await saveWorkflow('notification-local-store', workflowId);
});
