import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import { OptionsError, readOptions, type SimulateOptions } from '../../scripts/simulate/options';
import { simulate, type SimulationReport } from '../../scripts/simulate/simulate';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

let stack: Stack;
let options: SimulateOptions;

beforeAll(async () => {
  stack = await startStack();
  options = readOptions(['--devices', '3', '--rate', '6', '--project', 'Simulated greenhouse'], {
    DDS_URL: stack.baseUrl,
    DDS_MQTT_URL: stack.config.MQTT_URL,
    MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
    DDS_EMAIL: `sim-${randomUUID()}@example.com`,
    DDS_PASSWORD: 'simulated password',
  });
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

async function simulatedDevices(token: string): Promise<{ id: string; name: string }[]> {
  const projects = await stack.request('GET', '/api/v1/projects', { token });
  const project = projects.body.data.projects.find((p: { name: string }) => p.name === 'Simulated greenhouse');
  const list = await stack.request('GET', `/api/v1/devices?projectId=${project.id}`, { token });
  return list.body.data.devices;
}

const latest = async (token: string, deviceId: string, pin: number) =>
  stack.request('GET', `/api/v1/data/${deviceId}/${pin}/latest`, { token });

describe('npm run simulate', () => {
  it('registers, creates a project and 3 devices, stores values from every device, answers a command, stops on abort', async () => {
    const stop = new AbortController();
    const progress: string[] = [];
    const run: Promise<SimulationReport> = simulate(options, { signal: stop.signal, onProgress: (l) => progress.push(l) });

    let token = '';
    await eventually(async () => {
      const login = await stack.request('POST', '/api/v1/auth/login', { body: { email: options.email, password: options.password } });
      expect(login.status).toBe(200);
      token = login.body.data.accessToken;
    }, 20_000);
    let devices: { id: string; name: string }[] = [];
    await eventually(async () => {
      devices = await simulatedDevices(token);
      expect(devices.map((d) => d.name).sort()).toEqual(['sim-001', 'sim-002', 'sim-003']);
    }, 20_000);
    for (const device of devices) {
      for (const pin of [0, 1]) {
        await eventually(async () => expect((await latest(token, device.id, pin)).status).toBe(200), 20_000);
      }
      const temperature = Number((await latest(token, device.id, 0)).body.data.value);
      expect(temperature).toBeGreaterThan(15);
      expect(temperature).toBeLessThan(27);
    }

    const first = devices[0] as { id: string };
    const service = await mqtt.connectAsync(stack.config.MQTT_URL, {
      username: stack.config.MQTT_USERNAME,
      password: stack.config.MQTT_PASSWORD,
      protocolVersion: 5,
      reconnectPeriod: 0,
    });
    await service.publishAsync(`${stack.config.MQTT_TOPIC_ROOT}/${first.id}/pin/V7/set`, 'on', { qos: 1 });
    await service.endAsync();
    await eventually(async () => expect((await latest(token, first.id, 7)).body.data?.value).toBe('on'), 20_000);

    await eventually(() => expect(progress.length).toBeGreaterThan(0));
    expect(progress.at(-1)).toMatch(/^3\/3 devices · \d+ values/);
    stop.abort();
    const report = await run;
    expect(report.deviceIds.sort()).toEqual(devices.map((d) => d.id).sort());
    expect(report.commands).toBe(1);
    expect(report.published).toBeGreaterThanOrEqual(7);
  }, 90_000);

  it('reuses the project and devices on a second run with the same account', async () => {
    const login = await stack.request('POST', '/api/v1/auth/login', { body: { email: options.email, password: options.password } });
    const before = (await simulatedDevices(login.body.data.accessToken)).map((d) => d.id).sort();
    const report = await simulate({ ...options, duration: 0.5 });
    expect(report.deviceIds.sort()).toEqual(before);
    expect((await simulatedDevices(login.body.data.accessToken)).length).toBe(3);
  }, 60_000);

  it('refuses bad arguments with a message naming each one', () => {
    expect(() => readOptions(['--devices', '0', '--rate', 'fast'], { DDS_PASSWORD: 'long enough' })).toThrow(OptionsError);
    expect(() => readOptions(['--devices', '0', '--rate', 'fast'], { DDS_PASSWORD: 'long enough' })).toThrow(
      /--devices[\s\S]*--rate[\s\S]*--email/,
    );
    expect(() => readOptions(['--nope'], {})).toThrow(OptionsError);
  });
});
