/**
 * The simulator answers OTA jobs (issue 39, docs/jobs.md "What a device must implement") on real
 * servers: `simulate()` runs its MQTT.js devices against a gateway, the twin worker (which runs the
 * jobs) and Mosquitto; the image is uploaded through the API and downloaded by each device with
 * its token; the service's own broker account offers what no job would (malformed, a mismatch).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Job } from '../../common/jobs';
import { createMqttClient, type MqttClient } from '../../common/mqtt';
import { OptionsError, readOptions } from '../../scripts/simulate/options';
import { failsUpdate } from '../../scripts/simulate/ota';
import { type SimulationReport, simulate } from '../../scripts/simulate/simulate';
import { createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { type ClientSocket, connectSocket, emitWithAck } from '../helpers/socket';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { startJob, watchJobs } from '../jobs/support';

jest.setTimeout(120_000);

let stack: Stack;
let owner: TestUser;
let socket: ClientSocket;
let jobs: ReturnType<typeof watchJobs>;
let service: MqttClient;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request, 'OTA operator');
  await setPlan(stack.request, owner, 'pro');
  socket = await connectSocket(stack.baseUrl, owner.token);
  jobs = watchJobs(socket, stack.request, owner);
  service = createMqttClient(stack.config, 'sim-ota-test');
  env = {
    DDS_URL: stack.baseUrl,
    DDS_MQTT_URL: stack.config.MQTT_URL,
    MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
    DDS_EMAIL: owner.email,
    DDS_PASSWORD: 'correct horse battery',
  };
}, 60_000);

afterAll(async () => {
  socket.close();
  await service.endAsync();
  await stack.stop();
});

/** A project of the owner, whose `job` events the socket gets. */
async function project(name: string): Promise<string> {
  const { id } = await createProject(stack.request, owner, name);
  await emitWithAck(socket, 'subscribe', { projectId: id });
  return id;
}

async function uploadFirmware(projectId: string, image: Buffer, version: string): Promise<string> {
  const res = await fetch(`${stack.baseUrl}/api/v1/firmware?projectId=${projectId}&version=${version}&name=main`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/octet-stream' },
    body: image,
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

/** The simulator running on `args` until `stop`, with every OTA line it logged. */
function run(args: string[]): { done: Promise<SimulationReport>; lines: string[]; stop: () => Promise<SimulationReport> } {
  const abort = new AbortController();
  const lines: string[] = [];
  const done = simulate(readOptions(args, env), { signal: abort.signal, onLog: (line) => lines.push(line) });
  return { done, lines, stop: () => (abort.abort(), done) };
}

/** The project's devices by name, once all `n` show `firmwareVersion` (their `info` arrived). */
async function devicesOn(projectId: string, n: number, firmwareVersion: string): Promise<Map<string, string>> {
  return eventually(async () => {
    const res = await stack.request('GET', `/api/v1/devices?projectId=${projectId}&firmwareVersion=${firmwareVersion}`, {
      token: owner.token,
    });
    expect(res.body.data.total).toBe(n);
    return new Map((res.body.data.devices as { id: string; name: string }[]).map((d) => [d.name, d.id]));
  }, 30_000);
}

const firmwareOf = async (deviceId: string): Promise<string> =>
  (await stack.request('GET', `/api/v1/devices/${deviceId}`, { token: owner.token })).body.data.firmwareVersion;

/** An http server of the test's own serving `image` at /image. */
async function serveImage(image: Buffer): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => res.end(image));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/image`, server };
}

test('an OTA job over 5 simulated devices completes with 5 succeeded, each device on the new firmware; malformed offers are ignored', async () => {
  const projectId = await project('OTA fleet');
  const sim = run(['--project', projectId, '--devices', '5', '--firmware', '1.0.0', '--rate', '2']);
  try {
    const devices = await devicesOn(projectId, 5, '1.0.0');
    const first = devices.get('sim-001') as string;
    const root = `${stack.config.MQTT_TOPIC_ROOT}/${first}`;

    // What no job sends: not JSON, and an offer without its fields. Logged, ignored, the device runs on.
    await service.publishAsync(`${root}/ota`, 'flash me', { qos: 1 });
    await service.publishAsync(`${root}/ota`, JSON.stringify({ jobId: 'j', version: '2.0.0' }), { qos: 1 });
    await eventually(() => expect(sim.lines.filter((l) => l.startsWith('sim-001 OTA offer ignored, malformed'))).toHaveLength(2));

    // An image whose bytes are not the offered ones: the device reports failed and stays on 1.0.0.
    const reports: { jobId: string; state: string; progress?: number; error?: string }[] = [];
    service.on('message', (topic, payload) => topic === `${root}/ota/status` && reports.push(JSON.parse(payload.toString())));
    await service.subscribeAsync(`${root}/ota/status`, { qos: 1 });
    const served = await serveImage(randomBytes(1000));
    const offered = { jobId: randomUUID(), firmwareId: randomUUID(), version: '9.9.9', size: 1000, url: served.url };
    const sha256 = createHash('sha256').update(randomBytes(1000)).digest('hex');
    await service.publishAsync(`${root}/ota`, JSON.stringify({ ...offered, sha256 }), { qos: 1 });
    await eventually(() =>
      expect(reports.at(-1)).toEqual({ jobId: offered.jobId, state: 'failed', error: expect.stringMatching(/^sha256 mismatch/) }),
    );
    // The 1000 bytes come in one piece: past every quarter at once.
    expect(reports.map((r) => r.progress ?? r.state)).toEqual([0, 25, 50, 75, 'failed']);
    served.server.close();
    expect(await firmwareOf(first)).toBe('1.0.0');

    const image = randomBytes(300_000);
    const firmwareId = await uploadFirmware(projectId, image, '2.0.0');
    const job = await startJob(stack.request, owner, {
      projectId,
      target: { filter: { firmwareVersionLt: '2.0.0' } },
      action: { type: 'ota', firmwareId },
    });
    const finished: Job = await jobs.until(job.id, (j) => j.state === 'completed', 90_000);
    expect(finished.total).toBe(5);
    expect(finished.counts).toEqual({ queued: 0, sent: 0, acknowledged: 0, succeeded: 5, failed: 0, expired: 0, canceled: 0 });
    for (const id of devices.values()) expect(await firmwareOf(id)).toBe('2.0.0');
    // The real job's handshake, step by step, on sim-001: the download passed each quarter.
    expect(reports.filter((r) => r.jobId === job.id).map((r) => [r.state, r.progress])).toEqual([
      ['downloading', 0],
      ['downloading', 25],
      ['downloading', 50],
      ['downloading', 75],
      ['installing', 100],
      ['done', undefined],
    ]);
    for (const name of devices.keys()) {
      expect(sim.lines.filter((l) => l.startsWith(`${name} OTA job ${job.id}:`))).toEqual([
        `${name} OTA job ${job.id}: offered 2.0.0 (300000 bytes): downloading`,
        `${name} OTA job ${job.id}: 300000 bytes, sha256 verified: installing`,
        `${name} OTA job ${job.id}: restarted on 2.0.0: done`,
      ]);
    }
    expect(await sim.stop()).toMatchObject({ updated: 5, updateFailed: 1 });
  } finally {
    await sim.stop();
  }
});

test('with --ota-fail 0.4, 2 of 5 devices (the same 2 on every run) report failed and the job counts them', async () => {
  const projectId = await project('OTA failing');
  const sim = run(['--project', projectId, '--devices', '5', '--ota-fail', '0.4']);
  try {
    const devices = await devicesOn(projectId, 5, '1.0.0');
    const firmwareId = await uploadFirmware(projectId, randomBytes(5000), '1.1.0');
    // 2 failures in 5 finished is a ratio of 0.4: under the bound, so the job runs to its end.
    const job = await startJob(stack.request, owner, {
      projectId,
      target: { tag: 'simulator' },
      action: { type: 'ota', firmwareId },
      rollout: { abortFailureRatio: 0.5, minDevices: 5 },
    });
    const finished = await jobs.until(job.id, (j) => j.state === 'completed', 90_000);
    expect(finished.counts).toEqual({ queued: 0, sent: 0, acknowledged: 0, succeeded: 3, failed: 2, expired: 0, canceled: 0 });
    const states = (await stack.request('GET', `/api/v1/jobs/${job.id}/devices?state=failed`, { token: owner.token })).body.data
      .devices as { deviceId: string; error: string }[];
    const failing = ['sim-003', 'sim-005'].map((name) => devices.get(name));
    expect(states.map((d) => d.deviceId).sort()).toEqual(failing.sort());
    for (const d of states) expect(d.error).toBe('install failed: flash write error (simulated, --ota-fail)');
    for (const id of devices.values()) expect(await firmwareOf(id)).toBe(failing.includes(id) ? '1.0.0' : '1.1.0');
    for (const name of ['sim-003', 'sim-005']) {
      expect(sim.lines).toContain(`${name} OTA job ${job.id}: failed: install failed: flash write error (simulated, --ota-fail)`);
    }
    expect(await sim.stop()).toMatchObject({ updated: 3, updateFailed: 2 });
  } finally {
    await sim.stop();
  }
});

test('the failing share is every 1/share-th device, and the flags are checked', () => {
  const failing = (share: number, n: number) => Array.from({ length: n }, (_, i) => i).filter((i) => failsUpdate(i, share));
  expect(failing(0.2, 10)).toEqual([4, 9]);
  expect(failing(0.4, 5)).toEqual([2, 4]);
  expect(failing(0, 10)).toEqual([]);
  expect(failing(1, 3)).toEqual([0, 1, 2]);
  expect(failing(0.29, 100)).toHaveLength(29);

  expect(readOptions(['--firmware', 'v2.1.0-rc.1', '--ota-fail', '0.25'], env)).toMatchObject({ firmware: 'v2.1.0-rc.1', otaFail: 0.25 });
  expect(readOptions([], env)).toMatchObject({ firmware: '1.0.0', otaFail: 0 });
  expect(() => readOptions(['--ota-fail', '1.5'], env)).toThrow(OptionsError);
  expect(() => readOptions(['--ota-fail', 'some'], env)).toThrow('--ota-fail: ');
  expect(() => readOptions(['--firmware', 'latest'], env)).toThrow('--firmware: a semantic version, such as 1.0.0');
});
