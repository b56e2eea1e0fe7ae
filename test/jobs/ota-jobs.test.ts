/**
 * OTA jobs (DESIGN §13, docs/jobs.md) on real servers: MQTT.js devices that answer the handshake
 * as docs/jobs.md asks (download with the token, check the sha256, report, send `info` with the
 * new version), a gateway, the twin worker and a Socket.IO watcher.
 */
import { createHash, randomBytes } from 'node:crypto';
import type mqtt from 'mqtt';
import { createDevice, type TestUser } from '../helpers/fixtures';
import type { Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { closeJobsSuite, type JobWatch, type JobsSuite, onlineDevice, openJobsSuite, startJob } from './support';

jest.setTimeout(120_000);

let suite: JobsSuite | undefined;
let stack: Stack;
let owner: TestUser;
let projectId: string;
let jobs: JobWatch;
let clients: mqtt.MqttClient[];

beforeAll(async () => {
  suite = await openJobsSuite();
  ({ stack, owner, projectId, jobs, clients } = suite);
});

afterAll(() => closeJobsSuite(suite));

interface Offer {
  jobId: string;
  firmwareId: string;
  version: string;
  size: number;
  sha256: string;
  url: string;
}

async function uploadFirmware(image: Buffer, version: string): Promise<{ id: string }> {
  const res = await fetch(`${stack.baseUrl}/api/v1/firmware?projectId=${projectId}&version=${version}&name=main`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/octet-stream' },
    body: image,
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
  return ((await res.json()) as { data: { id: string } }).data;
}

/**
 * A device on firmware 1.0.0 that answers OTA offers: reports downloading, downloads the image,
 * checks size and sha256, reports installing, sends `info` with the new version, reports done. With
 * `fail`, it reports failed instead. Records the offers it got.
 */
async function otaDevice(tag: string, fail = false): Promise<{ id: string; offers: Offer[] }> {
  const device = await createDevice(stack.request, owner, projectId, `ota-${tag}`);
  await stack.request('PATCH', `/api/v1/devices/${device.id}`, { token: owner.token, body: { tags: [tag] } });
  const root = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}`;
  const offers: Offer[] = [];
  const client = await onlineDevice(stack, owner, device, ['ota'], (self, _topic, payload) => {
    const report = (body: Record<string, unknown>) => self.publishAsync(`${root}/ota/status`, JSON.stringify(body), { qos: 1 });
    const offer = JSON.parse(payload.toString()) as Offer;
    offers.push(offer);
    void (async () => {
      if (fail) return report({ jobId: offer.jobId, state: 'failed', error: 'flash write error' });
      await report({ jobId: offer.jobId, state: 'downloading', progress: 0 });
      const image = Buffer.from(await (await fetch(offer.url)).arrayBuffer());
      if (image.length !== offer.size || createHash('sha256').update(image).digest('hex') !== offer.sha256) {
        return report({ jobId: offer.jobId, state: 'failed', error: 'sha256 mismatch' });
      }
      await report({ jobId: offer.jobId, state: 'installing', progress: 100 });
      await self.publishAsync(`${root}/info`, JSON.stringify({ firmwareVersion: offer.version }), { qos: 1 });
      await report({ jobId: offer.jobId, state: 'done' });
    })();
  });
  clients.push(client);
  await client.publishAsync(`${root}/info`, JSON.stringify({ firmwareVersion: '1.0.0' }), { qos: 1 });
  return { id: device.id, offers };
}

test('an OTA job over 20 devices completes with 20 succeeded and each device on the new firmware', async () => {
  const image = randomBytes(200_000);
  const firmware = await uploadFirmware(image, '2.0.0');
  const fleet = [];
  for (let i = 0; i < 20; i++) fleet.push(await otaDevice('ota-fleet'));
  // Targets by the device list's filter: the fleet's tag, on firmware below 2.0.0 (their info says 1.0.0).
  const filter = 'tag=ota-fleet&firmwareVersionLt=2.0.0';
  await eventually(async () => {
    const list = await stack.request('GET', `/api/v1/devices?projectId=${projectId}&${filter}`, { token: owner.token });
    expect(list.body.data.total).toBe(20);
  }, 20_000);

  const job = await startJob(stack.request, owner, {
    projectId,
    target: { filter: { tag: 'ota-fleet', firmwareVersionLt: '2.0.0' } },
    action: { type: 'ota', firmwareId: firmware.id },
  });
  const finished = await jobs.until(job.id, (j) => j.state === 'completed', 90_000);
  expect(finished.total).toBe(20);
  expect(finished.counts).toEqual({ queued: 0, sent: 0, acknowledged: 0, succeeded: 20, failed: 0, expired: 0, canceled: 0 });
  for (const device of fleet) {
    expect(device.offers).toHaveLength(1);
    const res = await stack.request('GET', `/api/v1/devices/${device.id}`, { token: owner.token });
    expect(res.body.data.firmwareVersion).toBe('2.0.0');
  }
  // The image is in use only while the job runs: deleted once it has ended.
  expect((await stack.request('DELETE', `/api/v1/firmware/${firmware.id}`, { token: owner.token })).status).toBe(204);
});

test('a job whose devices fail past the ratio aborts and sends nothing more', async () => {
  const firmware = await uploadFirmware(randomBytes(1000), '3.0.0');
  const fleet = [];
  for (let i = 0; i < 8; i++) fleet.push(await otaDevice('ota-failing', true));
  const job = await startJob(stack.request, owner, {
    projectId,
    target: { tag: 'ota-failing' },
    action: { type: 'ota', firmwareId: firmware.id },
    rollout: { maxPerMinute: 60, abortFailureRatio: 0.5, minDevices: 2 },
  });
  // Running: the image cannot be deleted.
  await jobs.until(job.id, (j) => j.state === 'running');
  expect((await stack.request('DELETE', `/api/v1/firmware/${firmware.id}`, { token: owner.token })).status).toBe(409);

  const aborted = await jobs.until(job.id, (j) => j.state === 'aborted', 60_000);
  expect(aborted.counts.failed).toBeGreaterThanOrEqual(2);
  expect(aborted.counts.canceled).toBeGreaterThanOrEqual(4);
  expect(aborted.counts.failed + aborted.counts.sent + aborted.counts.canceled).toBe(8);
  const devices = (await stack.request('GET', `/api/v1/jobs/${job.id}/devices?limit=100`, { token: owner.token })).body.data.devices as {
    deviceId: string;
    state: string;
  }[];
  const offered = fleet.filter((d) => d.offers.length > 0).map((d) => d.id);
  expect(offered.sort()).toEqual(
    devices
      .filter((d) => d.state !== 'canceled')
      .map((d) => d.deviceId)
      .sort(),
  );
  expect(fleet.every((d) => d.offers.length <= 1)).toBe(true);
});
