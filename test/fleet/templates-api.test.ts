/**
 * Device templates over the management API (DESIGN §12): CRUD with the contract's fields, devices
 * made from a template or given one later, the 409 while devices use it, and what is refused.
 */
import { addMember, createDevice, createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

let stack: Stack;
let owner: TestUser;
let viewer: TestUser;
let projectId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  viewer = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
  await addMember(stack.request, owner, projectId, viewer, 'viewer');
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const PINS = [
  { pin: 'V0', name: 'Temperature', dataType: 'FLOAT', unit: '°C', min: -40, max: 85 },
  { pin: 'd3', name: 'Relay', dataType: 'BOOLEAN' },
];

async function createTemplate(body: Record<string, unknown> = {}, user = owner) {
  return stack.request('POST', '/api/v1/templates', { token: user.token, body: { projectId, name: 'Battery sensor', ...body } });
}

describe('templates', () => {
  it('creates a template with exactly the DESIGN §12 fields, reads, lists and changes it', async () => {
    const created = await createTemplate({ description: 'one message an hour', heartbeatTimeoutS: 3600, pins: PINS });
    expect(created.status).toBe(201);
    const template = created.body.data;
    expect(template).toEqual({
      id: expect.any(String),
      projectId,
      name: 'Battery sensor',
      description: 'one message an hour',
      heartbeatTimeoutS: 3600,
      pins: [
        { pin: 'V0', name: 'Temperature', dataType: 'FLOAT', unit: '°C', min: -40, max: 85 },
        { pin: 'D3', name: 'Relay', dataType: 'BOOLEAN', unit: null, min: null, max: null },
      ],
      deviceCount: 0,
      provisioning: { enabled: false },
      createdAt: expect.any(String),
    });
    expect((await stack.request('GET', `/api/v1/templates/${template.id}`, { token: viewer.token })).body.data).toEqual(template);
    const listed = await stack.request('GET', `/api/v1/templates?projectId=${projectId}`, { token: viewer.token });
    expect(listed.body.data.templates.map((t: { id: string }) => t.id)).toContain(template.id);

    const patched = await stack.request('PATCH', `/api/v1/templates/${template.id}`, {
      token: owner.token,
      body: { name: 'Gateway', heartbeatTimeoutS: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ ...template, name: 'Gateway', heartbeatTimeoutS: null });
  });

  it('refuses bad input with 400 naming the field, a viewer with 403, an unknown id with 404', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'body.name'],
      [{ heartbeatTimeoutS: 1 }, 'body.heartbeatTimeoutS'],
      [{ pins: [{ pin: 'X9', name: 'x', dataType: 'FLOAT' }] }, 'body.pins.0.pin'],
      [{ pins: [{ pin: 'V1', name: 'x', dataType: 'DOUBLE' }] }, 'body.pins.0.dataType'],
      [{ pins: [{ pin: 'V1', name: 'x', dataType: 'FLOAT', min: 5, max: 1 }] }, 'body.pins.0.min'],
      [{ pins: [PINS[0], PINS[0]] }, 'body.pins'],
    ];
    for (const [body, field] of cases) {
      const res = await createTemplate(body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await createTemplate({}, viewer)).status).toBe(403);
    const missing = await stack.request('GET', '/api/v1/templates/7f1c2a57-1a6b-4c1e-8a43-6f1d1cf1a111', { token: owner.token });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('TEMPLATE_NOT_FOUND');
    const patchProject = await stack.request('PATCH', `/api/v1/templates/${(await createTemplate()).body.data.id}`, {
      token: owner.token,
      body: { projectId },
    });
    expect(patchProject.status).toBe(400);
  });

  it('devices take a template at create or later, count in it, and hold it from deletion (409) until they let it go', async () => {
    const template = (await createTemplate({ heartbeatTimeoutS: 30 })).body.data;
    const made = await stack.request('POST', '/api/v1/devices', {
      token: owner.token,
      body: { projectId, name: 'From template', templateId: template.id },
    });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ templateId: template.id, heartbeatTimeoutS: null });
    const later = await createDevice(stack.request, owner, projectId, 'Given later');
    const given = await stack.request('PATCH', `/api/v1/devices/${later.id}`, {
      token: owner.token,
      body: { templateId: template.id, heartbeatTimeoutS: 90 },
    });
    expect(given.status).toBe(200);
    expect(given.body.data).toMatchObject({ templateId: template.id, heartbeatTimeoutS: 90 });
    expect((await stack.request('GET', `/api/v1/devices/${later.id}`, { token: owner.token })).body.data).toMatchObject({
      templateId: template.id,
      heartbeatTimeoutS: 90,
    });
    expect((await stack.request('GET', `/api/v1/templates/${template.id}`, { token: owner.token })).body.data.deviceCount).toBe(2);
    const filtered = await stack.request('GET', `/api/v1/devices?projectId=${projectId}&templateId=${template.id}`, { token: owner.token });
    expect(filtered.body.data.devices.map((d: { name: string }) => d.name).sort()).toEqual(['From template', 'Given later']);

    const refused = await stack.request('DELETE', `/api/v1/templates/${template.id}`, { token: owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');

    await stack.request('PATCH', `/api/v1/devices/${later.id}`, { token: owner.token, body: { templateId: null } });
    expect((await stack.request('DELETE', `/api/v1/devices/${made.body.data.id}`, { token: owner.token })).status).toBe(204);
    expect((await stack.request('GET', `/api/v1/templates/${template.id}`, { token: owner.token })).body.data.deviceCount).toBe(0);
    expect((await stack.request('DELETE', `/api/v1/templates/${template.id}`, { token: owner.token })).status).toBe(204);
    expect((await stack.request('GET', `/api/v1/templates/${template.id}`, { token: owner.token })).status).toBe(404);
  });

  it('a template of another project, or none at all, is 400 on a device; nothing is created', async () => {
    const otherProject = (await createProject(stack.request, owner, 'Other')).id;
    const foreign = (
      await stack.request('POST', '/api/v1/templates', { token: owner.token, body: { projectId: otherProject, name: 'Foreign' } })
    ).body.data;
    for (const templateId of [foreign.id, '7f1c2a57-1a6b-4c1e-8a43-6f1d1cf1a111']) {
      const res = await stack.request('POST', '/api/v1/devices', { token: owner.token, body: { projectId, name: 'Nope', templateId } });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'body.templateId', problem: 'not a template of the project' }]);
    }
    const listed = await stack.request('GET', `/api/v1/devices?projectId=${projectId}&q=Nope`, { token: owner.token });
    expect(listed.body.data.total).toBe(0);
    expect((await stack.request('GET', `/api/v1/templates/${foreign.id}`, { token: owner.token })).body.data.deviceCount).toBe(0);
  });

  it("binds widgets to a template's pins (its dashboard), refuses a template KEYPAD lock, and a delete takes dashboard and rules with it", async () => {
    const template = (await createTemplate({ pins: PINS })).body.data;
    const layout = { x: 0, y: 0, w: 2, h: 2 };
    const widget = await stack.request('POST', '/api/v1/widgets', {
      token: owner.token,
      body: { projectId, templateId: template.id, type: 'GAUGE', pin: 0, layout, config: { label: 'Temperature' } },
    });
    expect(widget.status).toBe(201);
    expect(widget.body.data).toMatchObject({ templateId: template.id, deviceId: null, pin: 0 });
    const listed = await stack.request('GET', `/api/v1/widgets?templateId=${template.id}`, { token: viewer.token });
    expect(listed.body.data.widgets.map((w: { id: string }) => w.id)).toEqual([widget.body.data.id]);
    const inProject = await stack.request('GET', `/api/v1/widgets?projectId=${projectId}`, { token: viewer.token });
    expect(inProject.body.data.widgets.map((w: { id: string }) => w.id)).toContain(widget.body.data.id);

    const device = await createDevice(stack.request, owner, projectId);
    const both = await stack.request('POST', '/api/v1/widgets', {
      token: owner.token,
      body: { projectId, templateId: template.id, deviceId: device.id, type: 'GAUGE', pin: 0, layout },
    });
    expect(both.status).toBe(400);
    const locked = await stack.request('POST', '/api/v1/widgets', {
      token: owner.token,
      body: { projectId, templateId: template.id, type: 'KEYPAD', pin: 1, layout, config: { locked: true } },
    });
    expect(locked.status).toBe(400);
    expect(locked.body.error.details).toEqual([{ field: 'body.config.locked', problem: "a template's dashboard holds no pin lock" }]);
    expect((await stack.request('GET', '/api/v1/widgets', { token: owner.token })).status).toBe(400);

    const rule = await stack.request('POST', '/api/v1/notifications/rules', {
      token: owner.token,
      body: { projectId, templateId: template.id, condition: 'gt', pin: 0, threshold: 50, message: 'hot' },
    });
    expect(rule.body.data).toMatchObject({ scope: 'template', templateId: template.id });
    expect((await stack.request('DELETE', `/api/v1/templates/${template.id}`, { token: owner.token })).status).toBe(204);
    expect((await stack.request('GET', `/api/v1/widgets/${widget.body.data.id}`, { token: owner.token })).status).toBe(404);
    const rules = await stack.request('GET', `/api/v1/notifications/rules?projectId=${projectId}`, { token: owner.token });
    expect(rules.body.data.rules.map((r: { id: string }) => r.id)).not.toContain(rule.body.data.id);
  });

  it("counts templates against the owner's plan: free allows 5 per project (403 QUOTA_EXCEEDED, shown on /auth/me)", async () => {
    const user = await registerUser(stack.request);
    await setPlan(stack.request, user, 'free');
    const project = (await createProject(stack.request, user)).id;
    for (let i = 0; i < 5; i++) {
      const res = await stack.request('POST', '/api/v1/templates', { token: user.token, body: { projectId: project, name: `T${i}` } });
      expect(res.status).toBe(201);
    }
    const over = await stack.request('POST', '/api/v1/templates', { token: user.token, body: { projectId: project, name: 'T5' } });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { resource: 'templates', limit: 5, used: 5 } });
    const me = await stack.request('GET', '/api/v1/auth/me', { token: user.token });
    expect(me.body.data.quotas.templates).toEqual({ limit: 5, used: 5 });
  });
});
