import { mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createLogger } from '../../common/logger';
import { stopLeftovers } from '../../scripts/start/leftovers';
import { startLocalServers } from '../../scripts/start/local-servers';
import { ensureTemporalCli } from '../../scripts/temporal-cli';
import { PROJECT_ROOT, TEMP_DIR_PREFIX } from '../harness/state';
import { connectAsDevice, createDevice, createProject, registerUser } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';
import { startNpmStart, type StartProcess } from './start-process';

/**
 * `MQTT_TLS=1 npm start` (docs/tls.md): its own Mosquitto gets a TLS listener with a certificate of
 * a local CA made in data/tls; the log and data/endpoints.json say where the CA file is, the
 * console's broker address is the TLS one, and a device that verifies the server with the CA
 * connects and its value is stored. In a private temp dir with its own servers, as
 * start-restart.test.ts.
 */

let dir = '';
let clusterDir: string | null = null;
let node: StartProcess | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), `${TEMP_DIR_PREFIX}start-tls-`));
});

afterAll(async () => {
  if (node && node.child.exitCode === null) {
    node.child.kill('SIGKILL');
    await node.exited;
  }
  await stopLeftovers(join(dir, 'data'), createLogger('silent', 'test')).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
  // As root the cluster lives in ~postgres/dds/<hash>/pg (scripts/start/cluster-dir.ts).
  if (clusterDir && basename(dirname(dirname(clusterDir))) === 'dds') await rm(dirname(clusterDir), { recursive: true, force: true });
}, 60_000);

test('MQTT_TLS=1 npm start serves MQTT over TLS with a local CA it names, and a device that verifies it is stored', async () => {
  node = await startNpmStart(dir, {
    TEMPORAL_CLI_PATH: await ensureTemporalCli(PROJECT_ROOT),
    DDS_LOCAL_SERVERS: 'own',
    MQTT_TLS: '1',
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_MS: '2000',
  });
  clusterDir = await readlink(join(dir, 'data', 'pg')).catch(() => join(dir, 'data', 'pg'));
  const caFile = join(dir, 'data', 'tls', 'ca.crt');
  expect(node.mqttUrl).toMatch(/^mqtts:\/\/localhost:\d+$/);
  expect(node.caFile).toBe(caFile);
  expect(node.output()).toContain(`MQTT over TLS ${node.mqttUrl} (devices verify it with the CA file ${caFile})`);
  expect(node.output()).not.toMatch(/BEGIN [A-Z ]*PRIVATE KEY/);

  const user = await registerUser(node.request);
  const broker = await node.request('GET', '/api/v1/broker', { token: user.token });
  expect(broker.body.data.mqttUrl).toBe(node.mqttUrl);
  const project = await createProject(node.request, user);
  const device = await createDevice(node.request, user, project.id);
  const client = await connectAsDevice(node.mqttUrl, device, { ca: await readFile(caFile), rejectUnauthorized: true });
  await client.publishAsync(`dds/${device.id}/pin/V1`, 'tls-start', { qos: 1 });
  await client.endAsync();
  await eventually(async () => {
    const latest = await node?.request('GET', `/api/v1/data/${device.id}/1/latest`, { token: user.token });
    expect(latest?.body.data?.value).toBe('tls-start');
  }, 10_000);

  node.child.kill('SIGINT');
  expect(await node.exited).toBe(0);
}, 120_000);

test('MQTT_TLS is 0 or 1, and 1 with MQTT_URL (a broker of the operator) stops the start before any server starts', async () => {
  const logger = createLogger('silent', 'test');
  const owner = { spawned: () => undefined };
  await expect(startLocalServers(dir, { MQTT_TLS: 'yes' }, owner, logger)).rejects.toThrow(/MQTT_TLS: 0 or 1/);
  await expect(startLocalServers(dir, { MQTT_TLS: '1', MQTT_URL: 'mqtt://broker.example:1883' }, owner, logger)).rejects.toThrow(
    /MQTT_TLS: 1 gives npm start's own broker a TLS listener; MQTT_URL names a broker of yours/,
  );
});
