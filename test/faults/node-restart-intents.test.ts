/**
 * What a request leaves for later survives the node that answered it: a token change the broker
 * did not confirm (202) is given to the broker and recorded after the node is SIGKILLed and a new
 * one started, because it waits in the durable outbox, not in the node's memory.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { connectAsDevice, createDevice, createProject, registerUser } from '../helpers/fixtures';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process';
import type { HttpResult } from '../helpers/http';
import { ownMosquitto, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { answerWithin, eventually } from '../helpers/wait';

let broker: RestartableServer;
const processes: GatewayProcess[] = [];
/** What the node and the one started after it share: no other node reads this queue's outbox. */
const shared = {
  CREDENTIAL_KEY: randomBytes(32).toString('hex'),
  TEMPORAL_TASK_QUEUE: `restart-${randomUUID()}`,
  MQTT_TOPIC_ROOT: `r${randomUUID().slice(0, 8)}`,
};

beforeAll(async () => {
  broker = await ownMosquitto();
}, 60_000);

afterAll(async () => {
  broker.thaw();
  for (const p of processes) if (p.exitCode() === undefined) p.child.kill('SIGKILL');
  await stopOwnServers();
});

/** A gateway node of its own process on the test's broker, queue and topic root. */
async function node(): Promise<GatewayProcess> {
  const started = await startGatewayProcess({ ...broker.env, ...shared });
  processes.push(started);
  return started;
}

async function logsIn(device: { id: string; token: string }): Promise<boolean> {
  try {
    await (await connectAsDevice(broker.env.MQTT_URL as string, device, { connectTimeout: 2000 })).endAsync();
    return true;
  } catch {
    return false;
  }
}

test('a 202 token change whose node was SIGKILLed before the broker woke still reaches the broker and is recorded', async () => {
  const first = await node();
  const owner = await registerUser(first.request);
  const projectId = (await createProject(first.request, owner)).id;
  const device = await createDevice(first.request, owner, projectId);
  broker.freeze();
  let res: HttpResult;
  try {
    res = await answerWithin(
      2500,
      'POST regenerate-token',
      first.request('POST', `/api/v1/devices/${device.id}/regenerate-token`, { token: owner.token }),
    );
    expect(res.status).toBe(202);
    first.child.kill('SIGKILL');
  } finally {
    broker.thaw();
  }
  const token: string = res.body.data.token;
  const second = await node();
  await eventually(async () => expect(await logsIn({ id: device.id, token })).toBe(true), 30_000, 250);
  expect(await logsIn(device)).toBe(false);
  await eventually(
    async () => {
      const read = await second.request('GET', `/api/v1/devices/${device.id}`, { token: owner.token });
      expect(read.body.data.token).toBe(`dt_…${token.slice(-4)}`);
    },
    30_000,
    250,
  );
}, 120_000);
