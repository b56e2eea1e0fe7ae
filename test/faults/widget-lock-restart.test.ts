/**
 * A KEYPAD widget whose lock the twin took, its gateway node SIGKILLed before it stored the
 * widget: the lock does not stay for good. The release waits in the durable outbox (a
 * `widget-lock` intent written before the lock was asked for), not in the dead node's memory, and
 * the next node carries it out.
 */
import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { createDevice, createProject, registerUser } from '../helpers/fixtures';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process';
import { ownRedis, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

let redis: RestartableServer;
let stack: Stack;
let subscriber: Redis;
const processes: GatewayProcess[] = [];
const credentialKey = randomBytes(32).toString('hex');

beforeAll(async () => {
  redis = await ownRedis();
  // The twin worker (and a node of its own) on the test's Redis and task queue.
  stack = await startStack({ overrides: redis.env, worker: true });
  await stack.redis.config('SET', 'notify-keyspace-events', 'Kh');
  subscriber = createRedis(stack.config, 'test-keyspace-subscriber');
}, 90_000);

afterAll(async () => {
  for (const p of processes) if (p.exitCode() === undefined) p.child.kill('SIGKILL');
  subscriber.disconnect();
  await stack.stop();
  await stopOwnServers();
});

async function node(): Promise<GatewayProcess> {
  const started = await startGatewayProcess({
    ...redis.env,
    TEMPORAL_TASK_QUEUE: stack.config.TEMPORAL_TASK_QUEUE,
    MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
    CREDENTIAL_KEY: credentialKey,
  });
  processes.push(started);
  return started;
}

test('a lock taken for a widget its node died before storing is released by the next node', async () => {
  const first = await node();
  const owner = await registerUser(first.request);
  const projectId = (await createProject(first.request, owner)).id;
  const device = await createDevice(first.request, owner, projectId);
  const channel = `__keyspace@0__:${keys.deviceLocks(device.id)}`;
  await subscriber.subscribe(channel);
  // The twin has taken the lock (its step wrote the lock mirror): the node dies before it stores
  // the widget, and before it could release anything.
  subscriber.once('message', () => first.child.kill('SIGKILL'));
  const res = await first
    .request('POST', '/api/v1/widgets', {
      token: owner.token,
      body: {
        type: 'KEYPAD',
        projectId,
        deviceId: device.id,
        pin: 5,
        layout: { x: 0, y: 0, w: 2, h: 2 },
        config: { label: 'Door', locked: true },
      },
    })
    .then(
      () => 'answered',
      () => 'no answer',
    );
  expect(res).toBe('no answer');
  await subscriber.unsubscribe(channel);
  expect((await stack.request('GET', `/api/v1/devices/${device.id}/locks`, { token: owner.token })).body.data.locks).toHaveLength(1);

  const second = await node();
  const locks = async () => (await second.request('GET', `/api/v1/devices/${device.id}/locks`, { token: owner.token })).body.data.locks;
  await eventually(async () => expect(await locks()).toEqual([]), 45_000, 500);
  const widgets = await second.request('GET', `/api/v1/widgets?projectId=${projectId}`, { token: owner.token });
  expect(widgets.body.data.widgets).toEqual([]);
}, 180_000);
