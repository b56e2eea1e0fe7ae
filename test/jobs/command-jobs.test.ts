/**
 * Command jobs (DESIGN §13, docs/jobs.md) on real servers: a gateway, the twin worker (which runs
 * the jobs), Temporal, Redis, the broker, MQTT.js devices and a Socket.IO watcher.
 */
import type mqtt from 'mqtt';
import type { Job } from '../../common/jobs';
import { createDevice, registerUser, type TestUser } from '../helpers/fixtures';
import type { Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { closeJobsSuite, type JobWatch, type JobsSuite, onlineDevice, openJobsSuite, startJob } from './support';

jest.setTimeout(90_000);

let suite: JobsSuite | undefined;
let stack: Stack;
let owner: TestUser;
let projectId: string;
let jobs: JobWatch;
let clients: mqtt.MqttClient[];

beforeAll(async () => {
  suite = await openJobsSuite('process');
  ({ stack, owner, projectId, jobs, clients } = suite);
});

afterAll(() => closeJobsSuite(suite));

async function devices(n: number, tags: string[] = []): Promise<{ id: string; token: string }[]> {
  const made = [];
  for (let i = 0; i < n; i++) {
    const device = await createDevice(stack.request, owner, projectId, `dev-${i}`);
    if (tags.length > 0) await stack.request('PATCH', `/api/v1/devices/${device.id}`, { token: owner.token, body: { tags } });
    made.push(device);
  }
  return made;
}

/** A device that echoes every command it gets (docs/commands.md: the echo acknowledges it). */
async function echoingDevice(device: { id: string; token: string }): Promise<void> {
  const client = await onlineDevice(stack, owner, device, ['pin/+/set'], (self, topic, payload) => {
    const pin = topic.split('/')[3] as string;
    void self.publishAsync(`${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/${pin}`, payload, { qos: 1 });
  });
  clients.push(client);
}

async function commandsOf(deviceId: string): Promise<{ id: string; state: string; createdAt: string; expiresAt: string | null }[]> {
  return (await stack.request('GET', `/api/v1/devices/${deviceId}/commands`, { token: owner.token })).body.data.commands;
}

async function jobDevices(jobId: string, state?: string) {
  const res = await stack.request('GET', `/api/v1/jobs/${jobId}/devices${state ? `?state=${state}` : ''}`, { token: owner.token });
  return res.body.data as { devices: { deviceId: string; state: string; commandId: string | null }[]; total: number };
}

test('a command job to a tag with half the devices offline: the online half acknowledged, the others delivered when they connect', async () => {
  const fleet = await devices(6, ['site-7']);
  const [online, offline] = [fleet.slice(0, 3), fleet.slice(3)];
  for (const d of online) await echoingDevice(d);

  const job = await startJob(stack.request, owner, {
    projectId,
    target: { tag: 'site-7' },
    action: { type: 'command', pin: 'V3', value: 'on' },
    ttlSeconds: 600,
  });
  expect(job).toMatchObject({
    state: 'scheduled',
    total: 0,
    action: { type: 'command', pin: 'V3', value: 'on' },
    target: { tag: 'site-7' },
  });
  expect(Object.keys(job).sort()).toEqual(
    ['action', 'counts', 'createdAt', 'finishedAt', 'id', 'projectId', 'startedAt', 'state', 'target', 'total'].sort(),
  );

  await jobs.until(job.id, (j) => j.counts.acknowledged === 3 && j.counts.queued === 3);
  const queued = await jobDevices(job.id, 'queued');
  expect(queued.devices.map((d) => d.deviceId).sort()).toEqual(offline.map((d) => d.id).sort());
  // Each send is an ordinary command receipt, queued for its device with the job's TTL.
  for (const d of queued.devices) {
    const [command] = await commandsOf(d.deviceId);
    expect(command).toMatchObject({ id: d.commandId, state: 'queued' });
    expect(Date.parse(command?.expiresAt ?? '') - Date.parse(command?.createdAt ?? '')).toBe(600_000);
  }

  for (const d of offline) await echoingDevice(d);
  const finished = await jobs.until(job.id, (j) => j.state === 'completed');
  expect(finished.counts).toEqual({ queued: 0, sent: 0, acknowledged: 6, succeeded: 0, failed: 0, expired: 0, canceled: 0 });
  expect(finished.total).toBe(6);
  for (const d of (await jobDevices(job.id)).devices) {
    const res = await stack.request('GET', `/api/v1/commands/${d.commandId}`, { token: owner.token });
    expect(res.body.data.state).toBe('acknowledged');
  }
  expect(jobs.seen.filter((e) => e.id === job.id).map((e) => e.state)).toEqual(
    expect.arrayContaining(['scheduled', 'running', 'completed']),
  );
  const read = await stack.request('GET', `/api/v1/jobs/${job.id}`, { token: owner.token });
  expect(read.body.data).toEqual(finished);
});

test('maxPerMinute spreads the sends as asked', async () => {
  const fleet = await devices(6);
  // 240 a minute: one send every 250 ms.
  const job = await startJob(stack.request, owner, {
    projectId,
    target: { deviceIds: fleet.map((d) => d.id) },
    action: { type: 'command', pin: 'V1', value: '7' },
    rollout: { maxPerMinute: 240 },
    ttlSeconds: 2,
  });
  await jobs.until(job.id, (j) => j.state === 'completed');
  const sentAt = (await Promise.all(fleet.map(async (d) => Date.parse((await commandsOf(d.id))[0]?.createdAt ?? '')))).sort(
    (a, b) => a - b,
  );
  const gaps = sentAt.slice(1).map((t, i) => t - (sentAt[i] as number));
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(240);
  // ...and it does not crawl: five gaps of 250 ms, with room for a loaded machine.
  expect((sentAt.at(-1) as number) - (sentAt[0] as number)).toBeLessThan(5 * 250 * 3);
});

test('cancel stops a running job: nothing more is sent, the rest is canceled', async () => {
  const fleet = await devices(8);
  const job = await startJob(stack.request, owner, {
    projectId,
    target: { deviceIds: fleet.map((d) => d.id) },
    action: { type: 'command', pin: 'V2', value: 'x' },
    rollout: { maxPerMinute: 60 },
  });
  await jobs.until(job.id, (j) => j.counts.queued >= 2);
  const res = await stack.request('POST', `/api/v1/jobs/${job.id}/cancel`, { token: owner.token });
  expect(res.status).toBe(200);
  const canceled = res.body.data as Job;
  expect(canceled.state).toBe('canceled');
  expect(canceled.finishedAt).not.toBeNull();
  expect(canceled.counts.queued + canceled.counts.canceled).toBe(8);
  const sent = (await jobDevices(job.id)).devices.filter((d) => d.state !== 'canceled');
  const withCommands = (await Promise.all(fleet.map(async (d) => ((await commandsOf(d.id)).length > 0 ? d.id : null)))).filter(Boolean);
  expect(withCommands.sort()).toEqual(sent.map((d) => d.deviceId).sort());
  expect((await stack.request('POST', `/api/v1/jobs/${job.id}/cancel`, { token: owner.token })).status).toBe(409);
});

test('a job goes on, with its rollout timers, when its worker process is killed (SIGKILL) mid-job and another starts', async () => {
  const fleet = await devices(6);
  const job = await startJob(stack.request, owner, {
    projectId,
    target: { deviceIds: fleet.map((d) => d.id) },
    action: { type: 'command', pin: 'V4', value: 'r' },
    rollout: { maxPerMinute: 120 },
    ttlSeconds: 3,
  });
  const midway = await jobs.until(job.id, (j) => j.counts.queued >= 2);
  await stack.killWorker();
  expect(midway.counts.queued).toBeLessThan(6);
  await stack.restartWorker();
  // An activity attempt the killed worker held is retried only after its start-to-close timeout
  // (2 minutes, workflows/job/run-job.ts): the job may wait that long (docs/jobs.md).
  const finished = await jobs.until(job.id, (j) => j.state === 'completed', 180_000);
  // Every device was sent to once, before or after the restart; their commands expired unsent (the devices stayed offline).
  expect(finished.counts.expired).toBe(6);
  for (const d of fleet) expect(await commandsOf(d.id)).toHaveLength(1);
}, 300_000);

test('refuses bad input with 400 naming the field, and a viewer with 403', async () => {
  const viewer = await registerUser(stack.request);
  const added = await stack.request('POST', `/api/v1/projects/${projectId}/members`, {
    token: owner.token,
    body: { email: viewer.email, role: 'viewer' },
  });
  expect(added.status).toBe(201);
  const asViewer = await stack.request('POST', '/api/v1/jobs', {
    token: viewer.token,
    body: { projectId, target: { tag: 'a' }, action: { type: 'command', pin: 'V1', value: '1' } },
  });
  expect(asViewer.status).toBe(403);
  const twoTargets = await stack.request('POST', '/api/v1/jobs', {
    token: owner.token,
    body: { projectId, target: { tag: 'a', templateId: projectId }, action: { type: 'command', pin: 'V1', value: '1' } },
  });
  expect(twoTargets.status).toBe(400);
  expect(twoTargets.body.error.details[0].field).toBe('body.target');
  const badPin = await stack.request('POST', '/api/v1/jobs', {
    token: owner.token,
    body: { projectId, target: { tag: 'a' }, action: { type: 'command', pin: 'X9', value: '1' } },
  });
  expect(badPin.body.error.details[0].field).toBe('body.action.pin');
  const badFirmware = await stack.request('POST', '/api/v1/jobs', {
    token: owner.token,
    body: { projectId, target: { tag: 'a' }, action: { type: 'ota', firmwareId: projectId } },
  });
  expect(badFirmware.body.error.details[0].field).toBe('body.action.firmwareId');
  const missing = await stack.request('GET', `/api/v1/jobs/${projectId}`, { token: owner.token });
  expect(missing.status).toBe(404);
  expect(missing.body.error.code).toBe('JOB_NOT_FOUND');
  await eventually(async () => {
    const list = await stack.request('GET', `/api/v1/jobs?projectId=${projectId}`, { token: owner.token });
    expect(list.body.data.jobs.length).toBeGreaterThanOrEqual(4);
  });
});
