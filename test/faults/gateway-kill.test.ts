/**
 * A gateway node SIGKILLed while 50 devices publish at QoS 1, then restarted: every value the
 * broker acknowledged to a device is stored. The node acknowledges a value only once it is
 * stored, and its broker sessions (named after NODE_ID) outlive it, so what it had not stored
 * is sent again when it is back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import mqtt from 'mqtt';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';

const ROOT = resolve(__dirname, '..', '..');
const DEVICES = 50;

let stack: Stack;
let owner: TestUser;
const clients: mqtt.MqttClient[] = [];
const gatewayProcesses: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
}, 60_000);

afterAll(async () => {
  for (const child of gatewayProcesses) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await stack.stop();
});

interface GatewayProcess {
  child: ChildProcess;
  output(): string;
}

/** gateway/main.ts as its own process on the stack's servers, resolved once it answers /readyz. */
async function startGatewayProcess(nodeId: string, credentialKey: string): Promise<GatewayProcess> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    REDIS_URL: stack.config.REDIS_URL,
    MQTT_URL: stack.config.MQTT_URL,
    MQTT_USERNAME: stack.config.MQTT_USERNAME ?? '',
    MQTT_PASSWORD: stack.config.MQTT_PASSWORD ?? '',
    MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
    MQTT_SESSION_EXPIRY_S: '120',
    MQTT_INGEST_CONNECTIONS: '4',
    TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS ?? '',
    TEMPORAL_TASK_QUEUE: stack.config.TEMPORAL_TASK_QUEUE,
    NODE_ID: nodeId,
    CREDENTIAL_KEY: credentialKey,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
  };
  delete env.MQTT_DYNSEC_USERNAME;
  delete env.MQTT_DYNSEC_PASSWORD;
  const child = spawn(process.execPath, ['-r', resolve(ROOT, 'test/twin/support/ts-register.js'), resolve(ROOT, 'gateway/main.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gatewayProcesses.push(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const port = await eventually(() => {
    const match = /"port":(\d+)[^\n]*gateway listening/.exec(out);
    if (!match) throw new Error(`gateway process not listening yet:\n${out.slice(-2000)}`);
    return Number(match[1]);
  }, 60_000, 100);
  await eventually(async () => {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    if (ready.status !== 200) throw new Error(`not ready: ${await ready.text()}`);
  }, 30_000, 100);
  return { child, output: () => out };
}

test('every value the broker acknowledged while a node was killed and restarted is stored', async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const devices = await Promise.all(Array.from({ length: DEVICES }, (_, i) => createDevice(stack.request, owner, projectId, `meter-${i}`)));
  for (const d of devices) {
    clients.push(
      await mqtt.connectAsync(stack.config.MQTT_URL, { username: d.id, password: d.token, protocolVersion: 5, reconnectPeriod: 0 }),
    );
  }

  const nodeId = `kill-${randomUUID().slice(0, 8)}`;
  const credentialKey = randomBytes(32).toString('hex');
  let node = await startGatewayProcess(nodeId, credentialKey);

  // Each device publishes 1, 2, 3, ... on V1 at QoS 1; a value counts once the broker acknowledged it.
  const acknowledged: number[][] = devices.map(() => []);
  let publishing = true;
  const publishers = devices.map(async (d, i) => {
    for (let n = 1; publishing; n += 1) {
      await clients[i]!.publishAsync(`${stack.config.MQTT_TOPIC_ROOT}/${d.id}/pin/V1`, String(n), { qos: 1 });
      acknowledged[i]!.push(n);
      await sleep(25);
    }
  });
  const total = () => acknowledged.reduce((sum, a) => sum + a.length, 0);

  await eventually(() => expect(total()).toBeGreaterThan(500), 20_000);
  node.child.kill('SIGKILL');
  await new Promise((r) => node.child.once('exit', r));
  const atKill = total();
  await eventually(() => expect(total()).toBeGreaterThan(atKill + 500), 20_000);
  node = await startGatewayProcess(nodeId, credentialKey);
  const atRestart = total();
  await eventually(() => expect(total()).toBeGreaterThan(atRestart + 200), 20_000);
  publishing = false;
  await Promise.all(publishers);

  const missing = await eventually(async () => {
    const lost: string[] = [];
    await Promise.all(
      devices.map(async (d, i) => {
        const res = await stack.request('GET', `/api/v1/data/${d.id}/1?limit=100000&from=${new Date(Date.now() - 600_000).toISOString()}`, {
          token: owner.token,
        });
        const stored = new Set((res.body.data.points as Array<{ value: number }>).map((p) => p.value));
        for (const n of acknowledged[i]!) if (!stored.has(n)) lost.push(`${d.id}:${n}`);
      }),
    );
    expect(lost).toEqual([]);
    return lost;
  }, 30_000, 500);
  expect(missing).toEqual([]);
  console.log(`gateway kill: ${total()} values acknowledged by the broker to ${DEVICES} devices (${atKill} before the kill, ${atRestart - atKill} while the node was down), all stored`);
  node.child.kill('SIGTERM');
  await new Promise((r) => node.child.once('exit', r));
}, 120_000);
