import type mqtt from 'mqtt';
import type { Job } from '../../common/jobs';
import { connectAsDevice, type TestUser } from '../helpers/fixtures';
import type { Request } from '../helpers/http';
import { type ClientSocket, collect, nextEvent } from '../helpers/socket';
import type { Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

/** POST /api/v1/jobs; the Job on 201, else a failure naming the answer. */
export async function startJob(request: Request, user: TestUser, body: Record<string, unknown>): Promise<Job> {
  const res = await request('POST', '/api/v1/jobs', { token: user.token, body });
  if (res.status !== 201) throw new Error(`job not created: ${res.status} ${res.text}`);
  return res.body.data as Job;
}

/**
 * Every `job` event a socket subscribed to the project gets, from now on; `until` resolves with the
 * first of a job's that matches, seen already or still to come.
 */
export function watchJobs(socket: ClientSocket) {
  const seen = collect(socket, 'job');
  return {
    seen,
    until(jobId: string, matches: (job: Job) => boolean, ms = 30_000): Promise<Job> {
      const found = seen.find((job) => job.id === jobId && matches(job));
      return found ? Promise.resolve(found) : nextEvent(socket, 'job', (job) => job.id === jobId && matches(job), ms);
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
