/**
 * Redis stopped while a twin takes its steps (docs/architecture.md, "The twin's steps run in its
 * workflow task"): a status change and an info message arrive during the outage; the step that
 * writes the mirror is retried inside the twin's workflow task, which the worker keeps alive. A
 * worker stopped meanwhile stops within about one attempt (a step's retries do not hold it until
 * Redis is back), and the next worker takes the step over; once Redis is back both messages land
 * in the mirror, in order, and Temporal has recorded no failed or timed-out workflow task.
 */
import { twinWorkflowId } from '../../common/contracts';
import { createDevice, createTwinTestEnv, eventually, mirror, type TwinTestEnv } from '../twin/helpers';
import { ownRedis, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { answerWithin } from '../helpers/wait';

/** One attempt's deadline (10 s) and a margin: retried inside the task, the stop took 153 s. */
const WORKER_STOPS_WITHIN_MS = 20_000;

/** Longer than the test: the device stays online once it is, whatever the outage did to lastSeen. */
const HEARTBEAT_S = 3600;

let redis: RestartableServer;
let env: TwinTestEnv;

beforeAll(async () => {
  redis = await ownRedis();
  env = await createTwinTestEnv('redis-outage', HEARTBEAT_S, redis.env);
}, 60_000);

afterAll(async () => {
  // Back up before the worker stops: a step still retrying against a stopped Redis holds its shutdown.
  await redis?.restart();
  await env?.cleanup();
  await stopOwnServers();
});

/** The kinds of the twin's history events that this test looks for, in order. */
const eventKinds = async (deviceId: string): Promise<string[]> => {
  const history = await env.client.workflow.getHandle(twinWorkflowId(deviceId)).fetchHistory();
  return (history.events ?? []).map((e) => {
    if (e.workflowExecutionSignaledEventAttributes) return 'signaled';
    if (e.workflowTaskCompletedEventAttributes) return 'task completed';
    if (e.workflowTaskFailedEventAttributes) return 'task failed';
    if (e.workflowTaskTimedOutEventAttributes) return 'task timed out';
    return 'other';
  });
};

test('a step that meets a stopped Redis is retried until Redis is back, across a worker restart, and nothing is lost', async () => {
  const device = await createDevice(env.redis);
  await env.twins.start(device.deviceId, device.projectId);
  await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'));

  await redis.stop();
  const at = new Date().toISOString();
  await env.twins.status(device.deviceId, device.projectId, 'online', at);
  await env.twins.info(device.deviceId, device.projectId, { firmwareVersion: '3.1.4', at });
  // The worker heartbeats a workflow task whose local activity outlasts most of the task's
  // timeout: each heartbeat is a completed task in the history. Two of them after the signals
  // mean the status write has been trying for longer than one attempt's deadline (10 s).
  const completedSince = async (): Promise<number> => {
    const kinds = await eventKinds(device.deviceId);
    return kinds.slice(kinds.indexOf('signaled')).filter((k) => k === 'task completed').length;
  };
  await eventually(async () => expect(await completedSince()).toBeGreaterThanOrEqual(2), 45_000, 500);

  await answerWithin(WORKER_STOPS_WITHIN_MS, 'worker stop during the outage', env.stopWorker());
  await env.startWorker();
  await redis.restart();
  await eventually(
    async () => {
      const now = await mirror(env.redis, device.deviceId);
      expect(now.status).toBe('online');
      expect(now.statusChangedAt).toBe(at);
      expect(now.firmwareVersion).toBe('3.1.4');
    },
    60_000,
    250,
  );
  expect(await env.twins.state(device.deviceId)).toMatchObject({ status: 'online' });
  const kinds = await eventKinds(device.deviceId);
  expect(kinds).not.toContain('task failed');
  expect(kinds).not.toContain('task timed out');
}, 150_000);
