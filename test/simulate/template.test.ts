/**
 * `npm run simulate -- --template T` (issue 38): the devices it makes get the project's template,
 * and every device reports on the template's pins, each value of its data type and in its range.
 */
import { OptionsError, readOptions } from '../../scripts/simulate/options';
import { simulate } from '../../scripts/simulate/simulate';
import { rangeOf, type SignalPin, templateSignals } from '../../scripts/simulate/template-signals';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

const PINS: SignalPin[] = [
  { pin: 'V5', dataType: 'FLOAT', min: 10, max: 20 },
  { pin: 'V6', dataType: 'INTEGER', min: -3, max: 3 },
  { pin: 'D1', dataType: 'BOOLEAN', min: null, max: null },
  { pin: 'V7', dataType: 'STRING', min: null, max: null },
  { pin: 'V8', dataType: 'JSON', min: null, max: 5 },
];

describe('template signals', () => {
  it('reports on each pin in turn, each value of its data type and inside its range', () => {
    const next = templateSignals(PINS, 3, () => 0.05);
    const seen = new Map<string, string[]>();
    for (let i = 0; i < 500; i++) {
      const r = next(i * 997);
      seen.set(r.pin, [...(seen.get(r.pin) ?? []), r.value]);
    }
    expect([...seen.keys()]).toEqual(['V5', 'V6', 'D1', 'V7', 'V8']);
    for (const v of seen.get('V5') ?? []) {
      expect(Number(v)).toBeGreaterThanOrEqual(10);
      expect(Number(v)).toBeLessThanOrEqual(20);
    }
    for (const v of seen.get('V6') ?? []) {
      expect(Number.isInteger(Number(v))).toBe(true);
      expect(Math.abs(Number(v))).toBeLessThanOrEqual(3);
    }
    expect(new Set(seen.get('D1'))).toEqual(new Set(['0', '1'])); // flips now and then
    expect(seen.get('V7')?.[0]).toBe('sim 3 #0');
    const json = JSON.parse(seen.get('V8')?.[0] ?? 'null') as { value: number };
    expect(json.value).toBeLessThanOrEqual(5);
    expect(json.value).toBeGreaterThanOrEqual(-95);
  });

  it('takes 0–100 for a pin without a range, and 100 wide from the one end given', () => {
    expect(rangeOf({ min: null, max: null })).toEqual([0, 100]);
    expect(rangeOf({ min: 50, max: null })).toEqual([50, 150]);
    expect(rangeOf({ min: null, max: 5 })).toEqual([-95, 5]);
  });
});

describe('npm run simulate --template', () => {
  let stack: Stack;
  let user: TestUser;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    stack = await startStack();
    user = await registerUser(stack.request, 'Tom Template');
    env = {
      DDS_URL: stack.baseUrl,
      DDS_MQTT_URL: stack.config.MQTT_URL,
      MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
      DDS_EMAIL: user.email,
      DDS_PASSWORD: 'correct horse battery',
    };
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const get = async (path: string) => {
    const res = await stack.request('GET', `/api/v1${path}`, { token: user.token });
    return { status: res.status, data: res.body?.data };
  };

  it("makes devices with the template (by name), joins one that keeps its own, and reports on the template's pins in range", async () => {
    const project = await createProject(stack.request, user, 'Vineyard');
    const made = await stack.request('POST', '/api/v1/templates', {
      token: user.token,
      body: {
        projectId: project.id,
        name: 'Soil probe',
        pins: [
          { pin: 'V5', name: 'Moisture', dataType: 'FLOAT', unit: '%', min: 10, max: 20 },
          { pin: 'D1', name: 'Valve', dataType: 'BOOLEAN' },
        ],
      },
    });
    expect(made.status).toBe(201);
    const templateId = made.body.data.id as string;
    const existing = await createDevice(stack.request, user, project.id, 'Row 1');

    const started: string[] = [];
    const report = await simulate(
      readOptions(
        [
          '--project',
          'Vineyard',
          '--template',
          'Soil probe',
          '--device-name',
          'Row 1',
          '--device-name',
          'Row 2',
          '--rate',
          '6',
          '--duration',
          '3',
        ],
        env,
      ),
      { onStart: (line) => started.push(line) },
    );

    expect(report.templateId).toBe(templateId);
    expect(started).toEqual([
      `Joined project Vineyard (${project.id}): 1 device made from template Soil probe, 1 joined with a new token (Row 1)`,
      'Kept their own template (set it on the device page to change): Row 1',
    ]);
    const [row1, row2] = report.deviceIds as [string, string];
    expect(row1).toBe(existing.id);
    expect((await get(`/devices/${row2}`)).data).toEqual(expect.objectContaining({ name: 'Row 2', templateId }));
    expect((await get(`/devices/${row1}`)).data).toEqual(expect.objectContaining({ templateId: null }));
    const ofTemplate = (await get(`/devices?projectId=${project.id}&templateId=${templateId}`)).data as {
      devices: Array<{ name: string }>;
    };
    expect(ofTemplate.devices.map((d) => d.name)).toEqual(['Row 2']);

    for (const id of [row1, row2]) {
      await eventually(async () => {
        const moisture = await get(`/data/${id}/V5/latest`);
        expect(moisture.status).toBe(200);
        expect(Number(moisture.data.value)).toBeGreaterThanOrEqual(10);
        expect(Number(moisture.data.value)).toBeLessThanOrEqual(20);
        const valve = await get(`/data/${id}/D1/latest`);
        expect(['0', '1']).toContain(valve.data?.value);
      });
      // The simulator's own pins are not sent when the template names the pins.
      expect((await get(`/data/${id}/V0/latest`)).status).toBe(404);
    }
  }, 60_000);

  it('takes the template by id, and refuses one the project does not have, naming those it has', async () => {
    const projects = (await get('/projects')).data as { projects: Array<{ id: string; name: string }> };
    const vineyard = projects.projects.find((p) => p.name === 'Vineyard');
    const templates = (await get(`/templates?projectId=${vineyard?.id}`)).data as { templates: Array<{ id: string }> };
    const id = templates.templates[0]?.id as string;
    const report = await simulate(
      readOptions(['--project', 'Vineyard', '--template', id, '--device-name', 'Row 3', '--duration', '0.5'], env),
    );
    expect(report.templateId).toBe(id);
    expect((await get(`/devices/${report.deviceIds[0]}`)).data).toEqual(expect.objectContaining({ templateId: id }));

    await expect(simulate(readOptions(['--project', 'Vineyard', '--template', 'Weather mast', '--duration', '0.5'], env))).rejects.toThrow(
      'No template Weather mast in this project (it has: Soil probe)',
    );
    expect(() => readOptions(['--template', ''], env)).toThrow(OptionsError);
  }, 60_000);
});
