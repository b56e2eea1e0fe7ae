/**
 * A gateway node SIGKILLed while 50 devices publish at QoS 1, then restarted: every value the
 * broker acknowledged to a device is stored. The node acknowledges a value only once it is
 * stored, and its broker sessions (named after NODE_ID) outlive it, so what it had not stored
 * is sent again when it is back.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type mqtt from 'mqtt';
import { connectAsDevice, createDevice, createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process';
import { startStack, type Stack } from '../helpers/stack';
import { missingAfterDrain, notYetStored, publishCounting } from '../helpers/stored-values';
import { eventually } from '../helpers/wait';

const DEVICES = 50;
/** How long the count of values not yet stored may stand still before the test calls them lost. */
const STALL_MS = 20_000;

let stack: Stack;
let owner: TestUser;
const clients: mqtt.MqttClient[] = [];
const gatewayProcesses: GatewayProcess[] = [];

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  // 50 devices: more than the free plan's quota (docs/limits.md).
  await setPlan(stack.request, owner, 'enterprise');
}, 60_000);

afterAll(async () => {
  for (const p of gatewayProcesses) if (p.exitCode() === undefined) p.child.kill('SIGKILL');
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await stack.stop();
});

/** A gateway node of its own process, on the stack's topic root and task queue, named `nodeId`. */
async function gatewayNode(nodeId: string, credentialKey: string): Promise<GatewayProcess> {
  const node = await startGatewayProcess({
    MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
    TEMPORAL_TASK_QUEUE: stack.config.TEMPORAL_TASK_QUEUE,
    NODE_ID: nodeId,
    CREDENTIAL_KEY: credentialKey,
    MQTT_SESSION_EXPIRY_S: '120',
    MQTT_INGEST_CONNECTIONS: '4',
  });
  gatewayProcesses.push(node);
  return node;
}

test('every value the broker acknowledged while a node was killed and restarted is stored', async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const devices = await Promise.all(Array.from({ length: DEVICES }, (_, i) => createDevice(stack.request, owner, projectId, `meter-${i}`)));
  for (const d of devices) {
    clients.push(await connectAsDevice(stack.config.MQTT_URL, d));
  }

  const nodeId = `kill-${randomUUID().slice(0, 8)}`;
  const credentialKey = randomBytes(32).toString('hex');
  let node = await gatewayNode(nodeId, credentialKey);

  // Each device publishes 1, 2, 3, ... on V1 (publishCounting) at QoS 1; a value counts once the broker acknowledged it.
  const publishing = publishCounting(clients, devices, stack.config.MQTT_TOPIC_ROOT, 25);
  const { acknowledged, total } = publishing;

  await eventually(() => expect(total()).toBeGreaterThan(500), 20_000);
  node.child.kill('SIGKILL');
  await eventually(() => expect(node.exitCode()).toBeNull());
  const atKill = total();
  await eventually(() => expect(total()).toBeGreaterThan(atKill + 500), 20_000);
  node = await gatewayNode(nodeId, credentialKey);
  const atRestart = total();
  await eventually(() => expect(total()).toBeGreaterThan(atRestart + 200), 20_000);
  await publishing.stop();

  // The restarted node drains its sessions' backlog (thousands of values on a loaded machine, so
  // no fixed deadline): wait while the count of values not yet stored keeps falling, and fail
  // when it has stood still for STALL_MS.
  const missing = await missingAfterDrain(() => notYetStored(stack.request, owner, devices, acknowledged), STALL_MS);
  expect(missing).toEqual([]);
  console.log(
    `gateway kill: ${total()} values acknowledged by the broker to ${DEVICES} devices (${atKill} before the kill, ${atRestart - atKill} while the node was down), all stored`,
  );
  await node.stop();
}, 300_000);
