/**
 * A device coming online, a rule added and its heartbeat shortened, all reaching the twin in one
 * workflow task (a busy worker: what bench/fleet-rules saw at 5,000 devices), then that task
 * replayed by a worker without it cached. The liveness watch started at the old heartbeat is
 * cancelled and a new one started at the same point of the replay as of the run, so the device
 * goes offline at the new heartbeat. Before REWATCH_AT_ONCE_PATCH (workflows/twin/version.ts) the
 * replay started the new watch at another command number: a nondeterminism error on every later
 * task, and a twin that never put its device offline.
 */
import { twinWorkflowId } from '../../common/contracts';
import { keys } from '../../common/redis-keys';
import { addRule, createDevice, createTwinTestEnv, deviceMessage, eventually, mirror, notificationsOf, type TwinTestEnv } from './helpers';

let env: TwinTestEnv;

beforeAll(async () => {
  env = await createTwinTestEnv('rewatch-replay', 3600);
});

afterAll(async () => {
  await env?.cleanup();
});

test('a heartbeat shortened in the task that brings the device online still puts it offline after a replay', async () => {
  const device = await createDevice(env.redis);
  await env.twins.start(device.deviceId, device.projectId);
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'));

  // Everything below waits for the one workflow task the restarted worker takes.
  await env.stopWorker();
  // A project-wide rule moves the project's rules version: the online step reloads the rules itself.
  await addRule(env.redis, device, { condition: 'offline', scope: 'project', deviceId: null });
  await env.redis.hset(keys.device(device.deviceId), 'heartbeatTimeoutS', '2');
  const at = new Date();
  await deviceMessage(env.redis, device.deviceId, 'V1', '1', at);
  await env.twins.activity(device.deviceId, device.projectId, at.toISOString(), 'V1');
  const told = env.twins.rulesChanged(device.deviceId, device.projectId);
  await env.startWorker();
  await told;
  // A new worker: the twin's next task (its watch ending) replays the history from the start.
  await env.stopWorker();
  await env.startWorker();

  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'), 20_000, 100);
  await eventually(async () =>
    expect(await notificationsOf(env.redis, device.projectId)).toEqual([
      expect.objectContaining({ type: 'device_status', title: 'Device offline' }),
    ]),
  );
  const history = await env.client.workflow.getHandle(twinWorkflowId(device.deviceId)).fetchHistory();
  expect((history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
}, 60_000);
