/**
 * Bulk import (DESIGN §14, docs/provisioning.md "Bulk import") on the real servers: 10,000 devices
 * in one request, a sample of their returned tokens logging in to the broker (the device plugin reads
 * their hashes in Redis) with their first values stored and read back, a sample writing with the
 * simple interface's `?token=`, their twins started; the credentials CSV; a repeated serial, a bad
 * row and a serial already provisioned refused naming the row with nothing written; the owner's
 * devices quota all or none.
 */
import { hashSecret } from '../../common/credentials';
import { keys } from '../../common/redis-keys';
import type { TwinClient } from '../../gateway/temporal/twin-client';
import { addMember, connectAsDevice, createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { connectTwinClient } from '../helpers/twin-client';
import { eventually } from '../helpers/wait';

const ROWS = 10_000;
const SAMPLE = 20;
let stack: Stack;
let twins: TwinClient;
let closeTwins: () => Promise<void>;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  ({ twins, close: closeTwins } = await connectTwinClient(stack));
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'enterprise');
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await closeTwins();
  await stack.stop();
});

interface Row {
  name: string;
  serial?: string;
  tags?: string[];
  description?: string;
}

interface Imported {
  id: string;
  name: string;
  serial: string | null;
  token: string;
}

function importDevices(user: TestUser, body: Record<string, unknown>, query = '', headers: Record<string, string> = {}) {
  return stack.request('POST', `/api/v1/devices/import${query}`, { token: user.token, body, headers });
}

async function makeTemplate(user: TestUser, inProject: string): Promise<string> {
  const res = await stack.request('POST', '/api/v1/templates', {
    token: user.token,
    body: { projectId: inProject, name: 'Meter', pins: [{ pin: 'V0', name: 'Temperature', dataType: 'FLOAT' }] },
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function deviceCount(user: TestUser, inProject: string): Promise<number> {
  const res = await stack.request('GET', `/api/v1/devices?projectId=${inProject}&limit=1`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body.data.total;
}

async function devicesUsed(user: TestUser): Promise<number> {
  return (await stack.request('GET', '/api/v1/auth/me', { token: user.token })).body.data.quotas.devices.used;
}

const rows = (count: number, prefix: string): Row[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `${prefix} ${i}`,
    serial: `${prefix}-${String(i).padStart(5, '0')}`,
    tags: ['imported'],
  }));

describe('10,000 devices in one request', () => {
  let templateId: string;
  let created: Imported[];
  let tookMs: number;

  beforeAll(async () => {
    templateId = await makeTemplate(owner, projectId);
    const started = performance.now();
    const res = await importDevices(owner, { projectId, templateId, devices: rows(ROWS, 'SN') });
    tookMs = performance.now() - started;
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    created = res.body.data.created;
    expect(res.body.data.failed).toEqual([]);
    process.stdout.write(`bulk import: ${ROWS} devices in one request took ${Math.round(tookMs)} ms\n`);
  }, 120_000);

  it('answers every row, in order, with its id, serial and a dt_ token stored only as its hash', async () => {
    expect(created).toHaveLength(ROWS);
    expect(new Set(created.map((d) => d.id)).size).toBe(ROWS);
    expect(created[1234]).toEqual({ id: expect.any(String), name: 'SN 1234', serial: 'SN-01234', token: expect.stringMatching(/^dt_/) });
    expect(await deviceCount(owner, projectId)).toBe(ROWS);
    expect(await devicesUsed(owner)).toBe(ROWS);
    const template = await stack.request('GET', `/api/v1/templates/${templateId}`, { token: owner.token });
    expect(template.body.data.deviceCount).toBe(ROWS);
    const sample = created[42] as Imported;
    const stored = await stack.redis.hgetall(keys.device(sample.id));
    expect(stored.tokenHash).toBe(hashSecret(sample.token));
    expect(JSON.stringify(stored)).not.toContain(sample.token);
    const shown = await stack.request('GET', `/api/v1/devices/${sample.id}`, { token: owner.token });
    expect(shown.body.data).toMatchObject({ name: 'SN 42', serial: 'SN-00042', tags: ['imported'], templateId, projectId });
    expect(shown.body.data.token).toBe(`dt_…${sample.token.slice(-4)}`);
  });

  it(`a sample of ${SAMPLE} logs in to the broker with its token; its first value is stored and read back; its twin runs`, async () => {
    const sample = Array.from({ length: SAMPLE }, (_, i) => created[i * (ROWS / SAMPLE) + 7] as Imported);
    const clients = await Promise.all(sample.map((d) => connectAsDevice(stack.config.MQTT_URL, d)));
    try {
      await Promise.all(
        clients.map((client, i) =>
          client.publishAsync(`${stack.config.MQTT_TOPIC_ROOT}/${sample[i]?.id}/pin/V0`, `${20 + i}.5`, { qos: 1 }),
        ),
      );
      for (const [i, device] of sample.entries()) {
        await eventually(async () => {
          const latest = await stack.request('GET', `/api/v1/data/${device.id}/V0/latest`, { token: owner.token });
          expect([latest.status, latest.body.data?.value]).toEqual([200, `${20 + i}.5`]);
        });
      }
    } finally {
      await Promise.all(clients.map((c) => c.endAsync(true)));
    }
    // Twins start through the outbox as for POST /devices: the sample's are running (a query answers).
    for (const device of sample.slice(0, 3))
      await eventually(async () => expect(await twins.state(device.id)).not.toBeNull(), 120_000, 500);
  }, 240_000);

  it('a sample writes with the simple interface once it is enabled (?token=)', async () => {
    for (const device of created.slice(500, 505)) {
      const enabled = await stack.request('PUT', `/api/v1/devices/${device.id}/simple-api`, {
        token: owner.token,
        body: { enabled: true },
      });
      expect(enabled.status).toBe(200);
      const write = await stack.request('GET', `/external/api/update?token=${enabled.body.data.token}&pin=V1&value=7`);
      expect(write.status).toBe(200);
      const latest = await stack.request('GET', `/api/v1/data/${device.id}/V1/latest`, { token: owner.token });
      expect(latest.body.data.value).toBe('7');
    }
  });

  it('the same serials again → 409 ALREADY_PROVISIONED naming the rows; nothing written', async () => {
    const again = await importDevices(owner, {
      projectId,
      templateId,
      devices: [
        { name: 'new', serial: 'NEW-1' },
        { name: 'again', serial: 'SN-00003' },
      ],
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_PROVISIONED');
    expect(again.body.error.details).toEqual([{ field: 'body.devices.1.serial', problem: expect.stringContaining('SN-00003') }]);
    expect(await deviceCount(owner, projectId)).toBe(ROWS);
    // NEW-1 was not left claimed: it imports now.
    expect((await importDevices(owner, { projectId, templateId, devices: [{ name: 'new', serial: 'NEW-1' }] })).status).toBe(201);
  });
});

describe('refused imports name the row and write nothing', () => {
  let user: TestUser;
  let inProject: string;

  beforeAll(async () => {
    user = await registerUser(stack.request);
    await setPlan(stack.request, user, 'pro');
    inProject = (await createProject(stack.request, user)).id;
  });

  it('a serial twice in one request, a bad row, too many rows, a template of another project → 400', async () => {
    const twice = await importDevices(user, {
      projectId: inProject,
      devices: [
        { name: 'a', serial: 'S-1' },
        { name: 'b', serial: 'S-2' },
        { name: 'c', serial: 'S-1' },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'body.devices.2.serial', problem: 'repeats the serial of row 0' }],
    });
    const bad = await importDevices(user, { projectId: inProject, devices: [{ name: 'ok' }, { name: 'ok 2', tags: ['x'] }, { name: '' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(['body.devices.2.name']);
    const unknownField = await importDevices(user, { projectId: inProject, devices: [{ name: 'ok', serialNumber: 'x' }] });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.details[0].field).toBe('body.devices.0');
    const tooMany = await importDevices(user, {
      projectId: inProject,
      devices: Array.from({ length: ROWS + 1 }, (_, i) => ({ name: `d${i}` })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details[0].field).toBe('body.devices');
    const foreign = await importDevices(user, {
      projectId: inProject,
      templateId: await makeTemplate(owner, projectId),
      devices: [{ name: 'x' }],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details).toEqual([{ field: 'body.templateId', problem: 'not a template of the project' }]);
    expect(await deviceCount(user, inProject)).toBe(0);
    expect(await devicesUsed(user)).toBe(0);
  });

  it('a viewer may not import (403); an outsider does not see the project (404)', async () => {
    const viewer = await registerUser(stack.request);
    await addMember(stack.request, user, inProject, viewer, 'viewer');
    expect((await importDevices(viewer, { projectId: inProject, devices: [{ name: 'x' }] })).status).toBe(403);
    const outsider = await registerUser(stack.request);
    expect((await importDevices(outsider, { projectId: inProject, devices: [{ name: 'x' }] })).status).toBe(404);
  });

  it("the owner's devices quota holds all or none: past it 403 QUOTA_EXCEEDED and nothing made; within it every row made", async () => {
    const free = await registerUser(stack.request);
    const freeProject = (await createProject(stack.request, free)).id;
    const one = await importDevices(free, { projectId: freeProject, devices: [{ name: 'first' }, { name: 'second' }, { name: 'third' }] });
    expect(one.status).toBe(201);
    const over = await importDevices(free, { projectId: freeProject, devices: rows(8, 'FREE') });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { resource: 'devices', limit: 10, used: 3 } });
    expect(await deviceCount(free, freeProject)).toBe(3);
    expect(await devicesUsed(free)).toBe(3);
    expect((await importDevices(free, { projectId: freeProject, devices: rows(7, 'FREE') })).status).toBe(201);
    expect(await devicesUsed(free)).toBe(10);
  });
});

describe('the credentials CSV', () => {
  it('?format=csv or Accept: text/csv answers a CSV download, once, whose tokens log in', async () => {
    const devices: Row[] = [{ name: 'Pump, north', serial: 'P-1' }, { name: 'Valve "B"' }];
    const csv = await importDevices(owner, { projectId, devices }, '?format=csv');
    expect(csv.status).toBe(201);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename=devices-${projectId}.csv`);
    expect(csv.headers.get('cache-control')).toBe('no-store');
    const [header, pump, valve, end] = csv.text.split('\n');
    expect(header).toBe('id,name,serial,token');
    expect(pump).toMatch(/^[0-9a-f-]{36},"Pump, north",P-1,dt_[A-Za-z0-9_-]{32}$/);
    expect(valve).toMatch(/^[0-9a-f-]{36},"Valve ""B""",,dt_[A-Za-z0-9_-]{32}$/);
    expect(end).toBe('');
    const [id, , , token] = (pump as string).replace('"Pump, north"', 'name').split(',');
    const client = await connectAsDevice(stack.config.MQTT_URL, { id: id as string, token: token as string });
    await client.endAsync(true);

    const accepted = await importDevices(owner, { projectId, devices: [{ name: 'by header' }] }, '', { accept: 'text/csv' });
    expect(accepted.status).toBe(201);
    expect(accepted.text).toMatch(/^id,name,serial,token\n[0-9a-f-]{36},by header,,dt_/);
  });
});
