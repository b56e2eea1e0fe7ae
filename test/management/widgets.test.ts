import { randomUUID } from 'node:crypto';
import { addMember, createDevice, createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { keys } from '../../common/redis-keys';

const WIDGET_TYPES = [
  'BUTTON',
  'SWITCH',
  'SLIDER',
  'GAUGE',
  'ANALOG_GAUGE',
  'GRAPH',
  'VALUE_DISPLAY',
  'LCD',
  'TERMINAL',
  'LED',
  'JOYSTICK',
  'MAP',
  'PROGRESS_BAR',
  'COLOR_PICKER',
  'STEP_CONTROL',
  'BRIDGE',
  'IMAGE',
  'TABLE',
  'BAR_CHART',
  'ALERT',
  'NUMBER_INPUT',
  'TIMER',
  'SEGMENTED_CONTROL',
  'SIGNAL_STRENGTH',
  'TEXT_INPUT',
  'SPARKLINE',
  'ICON_STATUS',
  'KEYPAD',
  'LOCATION',
];

let stack: Stack;
let owner: TestUser;
let editor: TestUser;
let viewer: TestUser;
let projectId: string;
let deviceId: string;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
  editor = await registerUser(stack.request);
  viewer = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
  await addMember(stack.request, owner, projectId, editor, 'editor');
  await addMember(stack.request, owner, projectId, viewer, 'viewer');
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const layout = { x: 0, y: 1, w: 4, h: 2 };

function widgetBody(overrides: Record<string, unknown> = {}) {
  return { type: 'GAUGE', projectId, deviceId, pin: 3, layout, config: { label: 'Temperature', suffix: '°C' }, ...overrides };
}

async function createWidget(overrides: Record<string, unknown> = {}, user = owner) {
  const res = await stack.request('POST', '/api/v1/widgets', { token: user.token, body: widgetBody(overrides) });
  if (res.status !== 201) throw new Error(`create widget failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function expectInvalid(body: unknown, field: string) {
  const res = await stack.request('POST', '/api/v1/widgets', { token: owner.token, body });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
}

describe('widget CRUD', () => {
  it('creates a widget (201) and returns it from GET one and from the project list', async () => {
    const created = await stack.request('POST', '/api/v1/widgets', { token: editor.token, body: widgetBody() });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'GAUGE',
        projectId,
        deviceId,
        templateId: null,
        pin: 3,
        layout,
        config: { label: 'Temperature', suffix: '°C' },
        createdAt: expect.any(String),
        updatedAt: created.body.data.createdAt,
      },
    });
    const one = await stack.request('GET', `/api/v1/widgets/${created.body.data.id}`, { token: viewer.token });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(created.body.data);

    const list = await stack.request('GET', `/api/v1/widgets?projectId=${projectId}`, { token: viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.data.widgets).toContainEqual(created.body.data);
    expect(JSON.parse((await stack.redis.get(keys.widget(created.body.data.id))) as string)).toEqual(created.body.data);
    expect(await stack.redis.sismember(keys.deviceWidgets(deviceId), created.body.data.id)).toBe(1);
  });

  it('accepts every one of the 29 widget types and rejects an unknown type', async () => {
    const project = await createProject(stack.request, owner);
    const device = await createDevice(stack.request, owner, project.id);
    for (const type of WIDGET_TYPES) {
      await createWidget({ type, projectId: project.id, deviceId: device.id, config: {} });
    }
    const list = await stack.request('GET', `/api/v1/widgets?projectId=${project.id}`, { token: owner.token });
    expect(list.body.data.widgets.map((w: { type: string }) => w.type).sort()).toEqual([...WIDGET_TYPES].sort());

    await expectInvalid(widgetBody({ type: 'SPINNER' }), 'body.type');
    await expectInvalid(widgetBody({ type: 'gauge' }), 'body.type');
  });

  it('defaults config to {} and keeps free-form keys of any JSON shape', async () => {
    const bare = await stack.request('POST', '/api/v1/widgets', {
      token: owner.token,
      body: { type: 'LED', projectId, deviceId, pin: 0, layout },
    });
    expect(bare.status).toBe(201);
    expect(bare.body.data.config).toEqual({});
    const free = { label: 'Map', zoom: 12, center: { lat: 52.1, lng: 4.3 }, markers: [[1, 2], []], note: null, shown: true };
    const widget = await createWidget({ type: 'MAP', config: free });
    expect(widget.config).toEqual(free);
  });

  it('validates type, layout, pin, device and config', async () => {
    const otherProject = await createProject(stack.request, owner);
    const foreignDevice = await createDevice(stack.request, owner, otherProject.id);
    const { layout: _omitted, ...withoutLayout } = widgetBody();

    await expectInvalid(withoutLayout, 'body.layout');
    await expectInvalid(widgetBody({ layout: { x: -1, y: 0, w: 1, h: 1 } }), 'body.layout.x');
    await expectInvalid(widgetBody({ layout: { x: 0, y: 0.5, w: 1, h: 1 } }), 'body.layout.y');
    await expectInvalid(widgetBody({ layout: { x: 0, y: 0, w: 1 } }), 'body.layout.h');
    await expectInvalid(widgetBody({ layout: { x: 0, y: 0, w: 1, h: 1, z: 2 } }), 'body.layout');
    await expectInvalid(widgetBody({ pin: 256 }), 'body.pin');
    await expectInvalid(widgetBody({ pin: -1 }), 'body.pin');
    await expectInvalid(widgetBody({ pin: 'X3' }), 'body.pin');
    await expectInvalid(widgetBody({ deviceId: foreignDevice.id }), 'body.deviceId');
    await expectInvalid(widgetBody({ deviceId: randomUUID() }), 'body.deviceId');
    await expectInvalid(widgetBody({ config: [1, 2] }), 'body.config');
    await expectInvalid(widgetBody({ config: { label: 42 } }), 'body.config.label');
    await expectInvalid(widgetBody({ config: { suffix: ['°C'] } }), 'body.config.suffix');
    await expectInvalid(widgetBody({ type: 'SLIDER', config: { min: 10, max: 5 } }), 'body.config.min');
    await expectInvalid(widgetBody({ type: 'SLIDER', config: { step: 0 } }), 'body.config.step');
    await expectInvalid(widgetBody({ type: 'KEYPAD', config: { locked: 'yes' } }), 'body.config.locked');
    await expectInvalid(widgetBody({ type: 'SEGMENTED_CONTROL', config: { options: [] } }), 'body.config.options');
    await expectInvalid(widgetBody({ config: { blob: 'x'.repeat(8200) } }), 'body.config');

    const nearLimit = await stack.request('POST', '/api/v1/widgets', {
      token: owner.token,
      body: widgetBody({ config: { blob: 'x'.repeat(8000) } }),
    });
    expect(nearLimit.status).toBe(201);
    // `locked` is a KEYPAD key; elsewhere it is free-form.
    expect((await createWidget({ type: 'SLIDER', config: { locked: 'yes' } })).config).toEqual({ locked: 'yes' });

    expect(await stack.redis.scard(keys.deviceWidgets(foreignDevice.id))).toBe(0);
  });

  it('patches: config merged key by key (null removes a key), layout replaced, type/device/pin untouched', async () => {
    const widget = await createWidget({ type: 'SLIDER', config: { label: 'Fan', min: 0, max: 100, color: 'red' } });
    const res = await stack.request('PATCH', `/api/v1/widgets/${widget.id}`, {
      token: editor.token,
      body: { config: { max: 50, color: null, extra: { a: 1 } }, layout: { x: 5, y: 5, w: 1, h: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...widget,
      layout: { x: 5, y: 5, w: 1, h: 1 },
      config: { label: 'Fan', min: 0, max: 50, extra: { a: 1 } },
      updatedAt: expect.any(String),
    });
    expect(res.body.data.updatedAt >= widget.updatedAt).toBe(true);
    const read = await stack.request('GET', `/api/v1/widgets/${widget.id}`, { token: owner.token });
    expect(read.body.data).toEqual(res.body.data);

    const layoutOnly = await stack.request('PATCH', `/api/v1/widgets/${widget.id}`, {
      token: editor.token,
      body: { layout: { x: 0, y: 0, w: 2, h: 2 } },
    });
    expect(layoutOnly.body.data.config).toEqual(res.body.data.config);
  });

  it('rejects a patch that is empty, names other fields, or leaves the config invalid, changing nothing', async () => {
    const widget = await createWidget({ type: 'SLIDER', config: { min: 0, max: 100 } });
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ pin: 4 }, 'body'],
      [{ config: { min: 200 } }, 'body.config.min'],
      [{ config: { label: 7 } }, 'body.config.label'],
      [{ layout: { x: 1 } }, 'body.layout.y'],
      [{ config: 'big' }, 'body.config'],
    ];
    for (const [body, field] of cases) {
      const res = await stack.request('PATCH', `/api/v1/widgets/${widget.id}`, { token: owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const read = await stack.request('GET', `/api/v1/widgets/${widget.id}`, { token: owner.token });
    expect(read.body.data).toEqual(widget);
  });

  it('deletes a widget (204); it is gone from reads, the list and both sets', async () => {
    const widget = await createWidget();
    const res = await stack.request('DELETE', `/api/v1/widgets/${widget.id}`, { token: editor.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = await stack.request('GET', `/api/v1/widgets/${widget.id}`, { token: owner.token });
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('WIDGET_NOT_FOUND');
    const list = await stack.request('GET', `/api/v1/widgets?projectId=${projectId}`, { token: owner.token });
    expect(list.body.data.widgets.map((w: { id: string }) => w.id)).not.toContain(widget.id);
    expect(await stack.redis.sismember(keys.projectWidgets(projectId), widget.id)).toBe(0);
    expect(await stack.redis.sismember(keys.deviceWidgets(deviceId), widget.id)).toBe(0);
    expect((await stack.request('DELETE', `/api/v1/widgets/${widget.id}`, { token: owner.token })).status).toBe(404);
  });
});

describe('widget access', () => {
  it('lets a viewer read but not write (403)', async () => {
    const widget = await createWidget();
    const create = await stack.request('POST', '/api/v1/widgets', { token: viewer.token, body: widgetBody() });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe('FORBIDDEN');
    const patch = await stack.request('PATCH', `/api/v1/widgets/${widget.id}`, { token: viewer.token, body: { layout } });
    expect(patch.status).toBe(403);
    const del = await stack.request('DELETE', `/api/v1/widgets/${widget.id}`, { token: viewer.token });
    expect(del.status).toBe(403);
    expect((await stack.request('GET', `/api/v1/widgets/${widget.id}`, { token: owner.token })).status).toBe(200);
  });

  it('hides widgets from outsiders (404, never 403) and needs a token', async () => {
    const widget = await createWidget();
    const stranger = await registerUser(stack.request);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { layout }],
      ['DELETE', undefined],
    ] as const) {
      const res = await stack.request(method, `/api/v1/widgets/${widget.id}`, { token: stranger.token, body });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('WIDGET_NOT_FOUND');
    }
    const list = await stack.request('GET', `/api/v1/widgets?projectId=${projectId}`, { token: stranger.token });
    expect(list.status).toBe(404);
    expect(list.body.error.code).toBe('PROJECT_NOT_FOUND');
    const create = await stack.request('POST', '/api/v1/widgets', { token: stranger.token, body: widgetBody() });
    expect(create.status).toBe(404);
    expect((await stack.request('GET', '/api/v1/widgets/not-a-uuid', { token: owner.token })).body.error.code).toBe('WIDGET_NOT_FOUND');
    expect((await stack.request('GET', '/api/v1/widgets', { token: owner.token })).status).toBe(400);
    expect((await stack.request('GET', `/api/v1/widgets/${widget.id}`)).status).toBe(401);
  });
});

describe('KEYPAD pin locks', () => {
  async function write(pin: number, value: string) {
    return stack.request('POST', `/api/v1/data/${deviceId}/${pin}`, { token: owner.token, body: { value } });
  }

  async function locks() {
    return (await stack.request('GET', `/api/v1/devices/${deviceId}/locks`, { token: owner.token })).body.data.locks;
  }

  it('a KEYPAD created locked locks its pin (403 PIN_LOCKED); patching locked to false releases it', async () => {
    const keypad = await createWidget({ type: 'KEYPAD', pin: 20, config: { label: 'Door', locked: true } });
    expect(await locks()).toContainEqual({ pin: 'V20', lockedAt: expect.any(String), widgetId: keypad.id });
    const refused = await write(20, '1234');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PIN_LOCKED');

    const layoutOnly = await stack.request('PATCH', `/api/v1/widgets/${keypad.id}`, { token: owner.token, body: { layout } });
    expect(layoutOnly.status).toBe(200);
    expect((await write(20, '1')).status).toBe(403);

    const unlocked = await stack.request('PATCH', `/api/v1/widgets/${keypad.id}`, {
      token: owner.token,
      body: { config: { locked: false } },
    });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.data.config).toEqual({ label: 'Door', locked: false });
    expect((await locks()).map((l: { pin: string }) => l.pin)).not.toContain('V20');
    expect((await write(20, '1234')).status).toBe(201);
  });

  it('patching a KEYPAD to locked true locks its pin; deleting the widget releases it', async () => {
    const keypad = await createWidget({ type: 'KEYPAD', pin: 21, config: {} });
    expect((await write(21, '1')).status).toBe(201);
    const locked = await stack.request('PATCH', `/api/v1/widgets/${keypad.id}`, { token: owner.token, body: { config: { locked: true } } });
    expect(locked.status).toBe(200);
    expect((await write(21, '2')).body.error.code).toBe('PIN_LOCKED');

    expect((await stack.request('DELETE', `/api/v1/widgets/${keypad.id}`, { token: owner.token })).status).toBe(204);
    expect((await locks()).map((l: { pin: string }) => l.pin)).not.toContain('V21');
    expect((await write(21, '3')).status).toBe(201);
  });

  it('removing the locked key releases the lock too, and a non-KEYPAD widget never locks', async () => {
    const keypad = await createWidget({ type: 'KEYPAD', pin: 22, config: { locked: true } });
    expect((await write(22, '1')).status).toBe(403);
    await stack.request('PATCH', `/api/v1/widgets/${keypad.id}`, { token: owner.token, body: { config: { locked: null } } });
    expect((await write(22, '1')).status).toBe(201);

    await createWidget({ type: 'BUTTON', pin: 23, config: { locked: true } });
    expect((await write(23, '1')).status).toBe(201);
  });
});

describe('widgets on D and A pins', () => {
  it('binds D0 and A15 by name, keeps a V pin as its number, and labels the pin it binds', async () => {
    const make = (pin: unknown, label: string) =>
      stack.request('POST', '/api/v1/widgets', {
        token: owner.token,
        body: { type: 'LED', projectId, deviceId, pin, layout: { x: 0, y: 0, w: 2, h: 2 }, config: { label } },
      });
    const door = await make('d0', 'Door');
    expect(door.status).toBe(201);
    expect(door.body.data.pin).toBe('D0');
    expect((await make('A15', 'Light')).body.data.pin).toBe('A15');
    expect((await make('V9', 'Nine')).body.data.pin).toBe(9);
    for (const bad of ['D100', 'A16', 'X1', '5', 256]) expect((await make(bad, 'Bad')).status).toBe(400);

    await setPlan(stack.request, owner, 'pro');
    const token = await stack.request('PUT', `/api/v1/devices/${deviceId}/simple-api`, { token: owner.token, body: { enabled: true } });
    const iot = token.body.data.token as string;
    expect((await stack.request('GET', `/external/api/update?token=${iot}&pin=D0&value=1`)).status).toBe(200);
    const all = await stack.request('GET', `/external/api/get-all?token=${iot}`);
    expect(all.body.pins.D0).toMatchObject({ value: '1', label: 'Door' });
  });
});
