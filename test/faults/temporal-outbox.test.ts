/**
 * Temporal stopped and started again (a private Temporal of this file: the shared one serves the
 * other test files): a device created, a threshold crossed, a rule changed and a device deleted
 * while it is down answer as usual, and once Temporal is back the device's twin exists, the
 * notification arrives, the twin watches the new rule and the deleted device's twin has ended,
 * all carried by the outbox relay.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { twinWorkflowId } from '../../common/contracts';
import { createTwinClient } from '../../gateway/temporal/twin-client';
import { startTemporal, type TemporalServer } from '../../scripts/dev-servers/temporal';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

/**
 * How long Temporal stays down: well past the deadline of one hand-off to Temporal (1.5 s, and the
 * client's 3 quick attempts), after which a notification handed straight to Temporal was given
 * up, and long enough for the relay to have failed and backed off more than once. This is the
 * outage's length, not a wait for something to happen.
 */
const OUTAGE_MS = 6_000;

let dir: string;
let temporal: TemporalServer;
let port: number;
let stack: Stack;
let owner: TestUser;
let projectId: string;
let connection: Connection | undefined;

async function startPrivateTemporal(): Promise<TemporalServer> {
  return startTemporal({ dir, projectRoot: process.cwd(), dbFile: join(dir, 'temporal.db'), port });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dds-outbox-temporal-'));
  temporal = await startTemporal({ dir, projectRoot: process.cwd(), dbFile: join(dir, 'temporal.db') });
  port = Number(temporal.address.split(':')[1]);
  stack = await startStack({ worker: true, overrides: { TEMPORAL_ADDRESS: temporal.address } });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await stack?.stop();
  await temporal?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

async function thresholdNotifications(deviceId: string): Promise<Array<{ message: string }>> {
  const res = await stack.request('GET', `/api/v1/notifications?projectId=${projectId}&deviceId=${deviceId}&type=threshold&limit=100`, {
    token: owner.token,
  });
  expect(res.status).toBe(200);
  return res.body.data.notifications;
}

test('a device created and a threshold crossed while Temporal is down get their twin and notification once it is back', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const rule = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, deviceId: device.id, pin: 1, condition: 'gt', threshold: 50, message: 'hot {value}', channels: ['inApp'] },
  });
  expect(rule.status).toBe(201);
  // The rule cache of the node has the rule once a value below the threshold is judged by it.
  await eventually(async () => {
    const below = await stack.request('POST', `/api/v1/data/${device.id}/1`, { token: owner.token, body: { value: '10' } });
    expect(below.status).toBe(201);
    expect(await stack.redis.hget(keys.deviceRuleState(device.id), rule.body.data.id)).toBe('0');
  });

  await temporal.stop();
  const created = await stack.request('POST', '/api/v1/devices', {
    token: owner.token,
    body: { projectId, name: 'made during the outage' },
  });
  expect(created.status).toBe(201);
  const newDevice: string = created.body.data.id;
  const crossing = await stack.request('POST', `/api/v1/data/${device.id}/1`, { token: owner.token, body: { value: '90' } });
  expect(crossing.status).toBe(201);
  // The intents wait in the outbox while Temporal is away: the twin start, and the crossing's
  // notification and alarm edge (docs/alarms.md).
  await eventually(async () => {
    const metrics = await stack.metrics();
    expect(metrics.dds_outbox_pending).toBe(3);
  });

  await sleep(OUTAGE_MS);
  temporal = await startPrivateTemporal();
  await eventually(async () => expect((await thresholdNotifications(device.id)).map((n) => n.message)).toEqual(['hot 90']), 90_000, 500);
  const alarms = async () => (await stack.request('GET', `/api/v1/alarms?deviceId=${device.id}`, { token: owner.token })).body.data.alarms;
  await eventually(async () => expect(await alarms()).toEqual([expect.objectContaining({ state: 'active', value: '90' })]), 30_000, 500);
  // The new device's twin started: it mirrored the device as offline.
  await eventually(async () => expect(await stack.redis.hget(keys.deviceState(newDevice), 'status')).toBe('offline'), 30_000, 500);
  await eventually(async () => expect((await stack.metrics()).dds_outbox_pending).toBe(0));
}, 180_000);

/** The twins as Temporal has them, through a client of the test's own (made once Temporal is up). */
async function twinsOf(): Promise<{ client: Client; twins: ReturnType<typeof createTwinClient> }> {
  connection ??= await Connection.connect({ address: temporal.address });
  const client = new Client({ connection, namespace: stack.config.TEMPORAL_NAMESPACE });
  const twins = createTwinClient({
    client,
    taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
    heartbeatTimeoutS: stack.config.DEVICE_HEARTBEAT_TIMEOUT_S,
  });
  return { client, twins };
}

test('a rule created and a device deleted while Temporal is down reach their twins once it is back', async () => {
  const watched = await createDevice(stack.request, owner, projectId);
  const deleted = await createDevice(stack.request, owner, projectId);
  // Both twins run (started by the relay): each mirrored its device as offline.
  for (const id of [watched.id, deleted.id]) {
    await eventually(async () => expect(await stack.redis.hget(keys.deviceState(id), 'status')).toBe('offline'), 30_000, 200);
  }

  await temporal.stop();
  const rule = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, deviceId: watched.id, pin: null, condition: 'offline', message: 'gone', channels: ['inApp'] },
  });
  expect(rule.status).toBe(201);
  expect((await stack.request('DELETE', `/api/v1/devices/${deleted.id}`, { token: owner.token })).status).toBe(204);
  await eventually(async () => expect((await stack.metrics()).dds_outbox_pending).toBe(2));

  await sleep(OUTAGE_MS);
  temporal = await startPrivateTemporal();
  const { client, twins } = await twinsOf();
  await eventually(async () => expect((await twins.state(watched.id))?.rules.map((r) => r.id)).toEqual([rule.body.data.id]), 90_000, 500);
  await eventually(
    async () => expect((await client.workflow.getHandle(twinWorkflowId(deleted.id)).describe()).status.name).toBe('COMPLETED'),
    30_000,
    500,
  );
  await eventually(async () => expect((await stack.metrics()).dds_outbox_pending).toBe(0));
}, 180_000);
