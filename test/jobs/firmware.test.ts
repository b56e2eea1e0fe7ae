import { createHash, randomBytes } from 'node:crypto';
import { createOtaTokens } from '../../store/ota-tokens';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  stack = await startStack({ overrides: { FIRMWARE_MAX_BYTES: String(3 * 1024 * 1024) } });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
});

afterAll(async () => {
  await stack.stop();
});

function upload(image: Buffer, query: string, token = owner.token, type = 'application/octet-stream'): Promise<Response> {
  return fetch(`${stack.baseUrl}/api/v1/firmware?${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body: image,
  });
}

describe('firmware images (DESIGN §13)', () => {
  it('stores an image with its size and sha256, lists it, and serves it to a device holding a token for it', async () => {
    // Over two 1 MiB chunks, so the storage's chunking is crossed.
    const image = randomBytes(2 * 1024 * 1024 + 12345);
    const res = await upload(image, `projectId=${projectId}&version=1.2.0&name=main`);
    expect(res.status).toBe(201);
    const firmware = ((await res.json()) as { data: Record<string, unknown> }).data;
    expect(firmware).toEqual({
      id: expect.any(String),
      projectId,
      name: 'main',
      version: '1.2.0',
      size: image.length,
      sha256: createHash('sha256').update(image).digest('hex'),
      createdAt: expect.any(String),
    });
    const list = await stack.request('GET', `/api/v1/firmware?projectId=${projectId}`, { token: owner.token });
    expect(list.body.data.firmware.map((f: { id: string }) => f.id)).toContain(firmware.id);
    expect((await stack.request('GET', `/api/v1/firmware/${firmware.id}`, { token: owner.token })).body.data).toEqual(firmware);

    const device = await createDevice(stack.request, owner, projectId);
    const token = await createOtaTokens(stack.redis).mint({ firmwareId: firmware.id as string, deviceId: device.id, jobId: 'j' }, 60);
    const download = await fetch(`${stack.baseUrl}/external/api/firmware/${firmware.id}?token=${token}`);
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.equals(image)).toBe(true);

    const wrong = await fetch(`${stack.baseUrl}/external/api/firmware/${firmware.id}?token=ota_wrong`);
    expect(wrong.status).toBe(401);
  });

  it('refuses an image over FIRMWARE_MAX_BYTES, another content type and a viewer, keeping nothing', async () => {
    const viewer = await registerUser(stack.request);
    expect((await upload(randomBytes(3 * 1024 * 1024 + 1), `projectId=${projectId}&version=2.0.0&name=big`)).status).toBe(413);
    // Found only while the body streams into PostgreSQL's transaction: the service's verdict, not a 503 naming postgres.
    expect((await upload(Buffer.alloc(0), `projectId=${projectId}&version=2.0.0&name=empty`)).status).toBe(400);
    expect((await upload(randomBytes(10), `projectId=${projectId}&version=2.0.0&name=x`, owner.token, 'text/plain')).status).toBe(415);
    expect((await upload(randomBytes(10), `projectId=${projectId}&version=2.0.0&name=x`, viewer.token)).status).toBe(404);
    expect((await upload(randomBytes(10), `projectId=${projectId}&name=x`)).status).toBe(400);
    const list = await stack.request('GET', `/api/v1/firmware?projectId=${projectId}`, { token: owner.token });
    expect(list.body.data.firmware.map((f: { version: string }) => f.version)).not.toContain('2.0.0');
  });

  it('deletes an image: its record and its download are gone', async () => {
    const res = await upload(randomBytes(1000), `projectId=${projectId}&version=0.9.0&name=old`);
    const { id } = ((await res.json()) as { data: { id: string } }).data;
    expect((await stack.request('DELETE', `/api/v1/firmware/${id}`, { token: owner.token })).status).toBe(204);
    expect((await stack.request('GET', `/api/v1/firmware/${id}`, { token: owner.token })).status).toBe(404);
  });
});
