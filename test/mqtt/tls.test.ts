/**
 * MQTT over TLS (issue 40, docs/tls.md): a Mosquitto with a TLS listener presenting a certificate
 * of the local CA that scripts/tls/make-local-ca.sh makes (as `npm start` with MQTT_TLS=1 does).
 * A device that verifies the server with that CA connects and its value is stored; one that
 * trusts only the system's CAs, or expects another host name, is refused before it sends its
 * token. The simulator does the same with --ca, and stops without it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { ownMosquitto, stopOwnServers } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { TEMP_DIR_PREFIX } from '../harness/state';
import { readOptions } from '../../scripts/simulate/options';
import { simulate } from '../../scripts/simulate/simulate';
import { type LocalCertificates, localCertificates } from '../../scripts/tls/local-ca';

let certDir: string;
let certificates: LocalCertificates;
let ca: Buffer;
let tlsUrl: string;
let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), `${TEMP_DIR_PREFIX}tls-`));
  certificates = await localCertificates(certDir);
  ca = await readFile(certificates.caFile);
  const broker = await ownMosquitto({ tls: { certFile: certificates.certFile, keyFile: certificates.keyFile } });
  tlsUrl = broker.env.PUBLIC_MQTT_URL as string;
  stack = await startStack({ overrides: broker.env });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await stopOwnServers();
  await rm(certDir, { recursive: true, force: true });
});

const latest = async (deviceId: string, pin: number) =>
  stack.request('GET', `/api/v1/data/${deviceId}/${pin}/latest`, { token: owner.token });

test('the TLS listener is on its own port, and the console shows it as the broker devices use', async () => {
  expect(tlsUrl).toMatch(/^mqtts:\/\/localhost:\d+$/);
  expect(new URL(tlsUrl).port).not.toBe(new URL(stack.config.MQTT_URL).port);
  const broker = await stack.request('GET', '/api/v1/broker', { token: owner.token });
  expect(broker.body.data.mqttUrl).toBe(tlsUrl);
});

test('a device that verifies the server with the local CA connects over TLS and its value is stored', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const client = await connectAsDevice(tlsUrl, device, { ca, rejectUnauthorized: true });
  try {
    await client.publishAsync(`${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/V3`, 'over-tls', { qos: 1 });
    await eventually(async () => expect((await latest(device.id, 3)).body.data?.value).toBe('over-tls'), 10_000, 100);
  } finally {
    await client.endAsync();
  }
});

test('a device without the CA is refused in the TLS handshake, before its token is sent', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await expect(connectAsDevice(tlsUrl, device, { rejectUnauthorized: true })).rejects.toMatchObject({
    code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  });
});

test('a device with the CA that expects another host name is refused', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await expect(connectAsDevice(tlsUrl, device, { ca, rejectUnauthorized: true, servername: 'iot.example.com' })).rejects.toMatchObject({
    code: 'ERR_TLS_CERT_ALTNAME_INVALID',
  });
});

test('the local CA is made once: a second run keeps the CA and the server certificate', async () => {
  const again = await localCertificates(certDir);
  expect(again.lines.join('\n')).toMatch(/kept the server certificate/);
  expect(await readFile(again.caFile)).toEqual(ca);
});

describe('npm run simulate over TLS', () => {
  const options = (argv: string[]) =>
    readOptions(['--devices', '1', '--rate', '5', '--project', 'TLS', ...argv], {
      DDS_URL: stack.baseUrl,
      MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
      DDS_EMAIL: `sim-tls-${randomUUID()}@example.com`,
      DDS_PASSWORD: 'simulated password',
    });

  it('with --ca: its device connects over TLS and its values are stored', async () => {
    const run = options(['--mqtt-url', tlsUrl, '--ca', certificates.caFile, '--duration', '3']);
    const report = await simulate(run);
    expect(report.errors).toBe(0);
    expect(report.published).toBeGreaterThan(0);
    const login = await stack.request('POST', '/api/v1/auth/login', { body: { email: run.email, password: run.password } });
    const token = login.body.data.accessToken as string;
    const deviceId = report.deviceIds[0] as string;
    await eventually(
      async () => expect((await stack.request('GET', `/api/v1/data/${deviceId}/0/latest`, { token })).status).toBe(200),
      10_000,
      100,
    );
  }, 30_000);

  it('without the CA: the broker is refused and the run stops with the certificate error', async () => {
    await expect(simulate(options(['--mqtt-url', tlsUrl, '--duration', '1']))).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  }, 30_000);

  it('refuses --ca with a broker URL that is not TLS', () => {
    expect(() => options(['--mqtt-url', stack.config.MQTT_URL, '--ca', certificates.caFile])).toThrow(/--ca: the broker URL is not TLS/);
  });
});
