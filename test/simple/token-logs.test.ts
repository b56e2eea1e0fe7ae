import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { composeGateway, type ComposedGateway } from '../../gateway/compose';
import { testConfig } from '../harness/config';
import { createDevice, createProject, registerUser } from '../helpers/fixtures';
import { httpClient, type Request } from '../helpers/http';
import { ADMIN_TOKEN } from '../helpers/stack';
import { enableSimpleApi, setPlan } from '../external/fixtures';

const lines: string[] = [];
let composed: ComposedGateway;
let request: Request;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const config = testConfig({ TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`, ADMIN_TOKEN, LOG_LEVEL: 'info' });
  composed = await composeGateway(config, pino({ level: 'info' }, sink), randomBytes(32).toString('hex'));
  request = httpClient(`http://127.0.0.1:${await composed.gateway.listen(0, '127.0.0.1')}`);
});
afterAll(async () => {
  await composed.stop();
});

describe('the device token never reaches the logs (SPEC §5 rule 5)', () => {
  it('logs each simple-interface request without its token, whatever the outcome', async () => {
    const owner = await registerUser(request);
    await setPlan(request, owner, 'pro');
    const project = await createProject(request, owner);
    const device = await createDevice(request, owner, project.id);
    const token = await enableSimpleApi(request, owner, device.id);

    const outcomes = [
      await request('GET', `/external/api/get?token=${token}&pin=V1`),
      await request('GET', `/external/api/is-online?token=${token}`),
      await request('GET', `/external/api/update?token=${token}&pin=V1&value=${'x'.repeat(2000)}`),
      await request('GET', `/external/api/nowhere?token=${token}`),
      await request('POST', `/external/api/notify?token=${token}`, { rawBody: '{broken' }),
    ].map((r) => r.status);
    expect(outcomes).toEqual([404, 200, 400, 404, 400]);

    const requestLines = lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request' && /get|is-online|update|nowhere|notify/.test(l.path));
    expect(requestLines.map((l) => l.status)).toEqual([404, 200, 400, 404, 400]);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(token);
    expect(lines.join('\n')).not.toContain(token.slice(4));
  });
});
