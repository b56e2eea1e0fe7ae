import type mqtt from 'mqtt';
import type { Job } from '../../common/jobs';
import { connectAsDevice, createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import type { Request } from '../helpers/http';
import { type ClientSocket, collect, connectSocket, emitWithAck, nextEvent } from '../helpers/socket';
import { type Stack, type StackOptions, startStack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';

/** POST /api/v1/jobs; the Job on 201, else a failure naming the answer. */
export async function startJob(request: Request, user: TestUser, body: Record<string, unknown>): Promise<Job> {
  const res = await request('POST', '/api/v1/jobs', { token: user.token, body });
  if (res.status !== 201) throw new Error(`job not created: ${res.status} ${res.text}`);
  return res.body.data as Job;
}

/**
 * Every `job` event a socket subscribed to the project gets, from now on; `until` resolves with the
 * first of a job's that matches, seen already or still to come. Like any client whose socket can
 * drop (a loaded machine missed a ping once, and the test socket does not reconnect), it also reads
 * the job with `request` as `user` every 2 s, so a `job` event sent while it was away is not waited
 * for in vain.
 */
export function watchJobs(socket: ClientSocket, request: Request, user: TestUser) {
  const seen = collect(socket, 'job');
  const read = async (jobId: string): Promise<Job | null> => {
    const res = await request('GET', `/api/v1/jobs/${jobId}`, { token: user.token });
    return res.status === 200 ? (res.body.data as Job) : null;
  };
  return {
    seen,
    async until(jobId: string, matches: (job: Job) => boolean, ms = 30_000): Promise<Job> {
      const found = seen.find((job) => job.id === jobId && matches(job));
      if (found) return found;
      const polling = new AbortController();
      const polled = (async (): Promise<Job> => {
        for (;;) {
          await sleep(2000);
          if (polling.signal.aborted) return new Promise<Job>(() => undefined);
          const job = await read(jobId).catch(() => null);
          if (job && matches(job)) return job;
        }
      })();
      try {
        return await Promise.race([nextEvent(socket, 'job', (job) => job.id === jobId && matches(job), ms), polled]);
      } catch (err) {
        const last = seen.filter((job) => job.id === jobId).at(-1);
        throw new Error(
          `${(err as Error).message}; socket connected: ${socket.connected}; last event of the job: ${JSON.stringify(last ?? null)}`,
        );
      } finally {
        polling.abort();
      }
    },
  };
}

/**
 * A device connected to the broker as itself, subscribed to `topics` (under its own root) with
 * `onMessage` listening before its `online` status goes out (what its twin then sends is not
 * missed), and shown online.
 */
export async function onlineDevice(
  stack: Stack,
  user: TestUser,
  device: { id: string; token: string },
  topics: string[],
  onMessage: (client: mqtt.MqttClient, topic: string, payload: Buffer) => void,
): Promise<mqtt.MqttClient> {
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  client.on('message', (topic, payload) => onMessage(client, topic, payload));
  const root = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}`;
  await client.subscribeAsync(
    topics.map((t) => `${root}/${t}`),
    { qos: 1 },
  );
  await client.publishAsync(`${root}/status`, 'online', { qos: 1, retain: true });
  await eventually(async () => {
    const res = await stack.request('GET', `/api/v1/devices/${device.id}`, { token: user.token });
    if (res.body.data.status !== 'online') throw new Error('not online yet');
  }, 15_000);
  return client;
}

export type JobWatch = ReturnType<typeof watchJobs>;

/**
 * What a jobs test file runs on: a stack with a twin worker (`worker`: in the test's process, or
 * its own process that a test can kill), a pro owner's project, a Socket.IO watcher of its `job`
 * events, and the MQTT devices its tests connect (ended by closeJobsSuite).
 */
export interface JobsSuite {
  stack: Stack;
  owner: TestUser;
  projectId: string;
  socket: ClientSocket;
  jobs: JobWatch;
  clients: mqtt.MqttClient[];
}

export async function openJobsSuite(worker: NonNullable<StackOptions['worker']> = true): Promise<JobsSuite> {
  const stack = await startStack({ worker });
  const owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'pro');
  const projectId = (await createProject(stack.request, owner)).id;
  const socket = await connectSocket(stack.baseUrl, owner.token);
  await emitWithAck(socket, 'subscribe', { projectId });
  return { stack, owner, projectId, socket, jobs: watchJobs(socket, stack.request, owner), clients: [] };
}

export async function closeJobsSuite(suite: JobsSuite | undefined): Promise<void> {
  if (!suite) return;
  suite.socket.close();
  await Promise.all(suite.clients.map((c) => c.endAsync()));
  await suite.stack.stop();
}
