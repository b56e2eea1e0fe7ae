import { randomUUID } from 'node:crypto';
import { connectAsync, type MqttClient } from 'mqtt';
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, screenshot } from '../helpers/browser';
import { registerUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

jest.setTimeout(120_000);

let stack: Stack;
const browsers: Browser[] = [];
let device: MqttClient | null = null;

beforeAll(async () => {
  stack = await startStack({ nodes: 2, worker: true });
});

afterAll(async () => {
  await device?.endAsync();
  await Promise.allSettled(browsers.map((b) => b.close()));
  await stack?.stop();
});

async function browserAt(): Promise<Page> {
  const b = await openBrowser();
  browsers.push(b);
  return b.page;
}

const widgetValue = (page: Page, type: string) => page.locator(`[data-testid="widget-${type}"] [data-testid="widget-value"]`);

async function signIn(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
}

/** Adds a widget through the form; `fields` by their labels in the form. */
async function addWidget(page: Page, type: string, pin: number, fields: Record<string, string> = {}): Promise<void> {
  await page.getByRole('button', { name: 'Add widget' }).click();
  await page.getByLabel('Widget type').selectOption(type);
  await page.getByLabel('Widget pin').fill(String(pin));
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByTestId('widget-form').getByRole('button', { name: 'Add widget' }).click();
  await page.getByTestId(`widget-${type}`).waitFor();
}

test('the console serves index.html at / and on client routes, never on service paths', async () => {
  const index = await fetch(`${stack.baseUrl}/`);
  expect(index.status).toBe(200);
  expect(index.headers.get('cache-control')).toBe('no-cache');
  const html = await index.text();
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  expect(asset).toBeDefined();
  const js = await fetch(`${stack.baseUrl}${asset}`);
  expect(js.status).toBe(200);
  expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect(html).not.toMatch(/https?:\/\//);

  const route = await fetch(`${stack.baseUrl}/projects/some-id`, { headers: { accept: 'text/html' } });
  expect(route.status).toBe(200);
  expect(await route.text()).toBe(html);

  for (const p of ['/api/v1/nothing', '/external/api/v1/nothing', '/socket.io/nothing', '/metrics/x', '/healthz/x', '/readyz/x']) {
    const res = await fetch(`${stack.baseUrl}${p}`, { headers: { accept: 'text/html' } });
    const body = await res.text();
    expect([p, res.status >= 400, res.headers.get('content-type')?.includes('text/html') ?? false, body === html]).toEqual([
      p,
      true,
      false,
      false,
    ]);
  }
});

test('sign up, project, device, gauge and slider live over MQTT, rule badge, viewer read-only, two nodes', async () => {
  const [node0, node1] = stack.nodes as [Stack['nodes'][0], Stack['nodes'][0]];
  const root = stack.config.MQTT_TOPIC_ROOT;
  const owner = await browserAt();

  // A new user signs up.
  const email = `owner-${randomUUID()}@example.com`;
  await owner.goto(`${node0.baseUrl}/signup`);
  await screenshot(owner, 'sign-up');
  await owner.getByLabel('Name').fill('Olivia Owner');
  await owner.getByLabel('Email').fill(email);
  await owner.getByLabel('Password').fill('correct horse battery');
  await owner.getByRole('button', { name: 'Sign up' }).click();
  await owner.getByRole('heading', { name: 'Projects' }).waitFor();

  // ... creates a project and a device; the credentials are shown once.
  await owner.getByLabel('Project name').fill('Greenhouse');
  await owner.getByLabel('Description').fill('Tomatoes and sensors');
  await owner.getByRole('button', { name: 'Create project' }).click();
  await owner.getByTestId('project-name').filter({ hasText: 'Greenhouse' }).waitFor();
  const projectUrl = owner.url();
  await owner.getByRole('link', { name: 'Devices' }).click();
  await owner.getByLabel('Device name').fill('Climate sensor');
  await owner.getByLabel('Device tags').fill('greenhouse, climate');
  await owner.getByRole('button', { name: 'Create device' }).click();
  const credentials = owner.getByTestId('device-credentials');
  await credentials.waitFor();
  const deviceId = (await owner.getByTestId('secret-MQTT username (device id)').textContent()) as string;
  const token = (await owner.getByTestId('secret-MQTT password (dt_ token)').textContent()) as string;
  expect(token).toMatch(/^dt_/);
  await screenshot(owner, 'device-created');

  // ... and a GAUGE on V1 and a SLIDER on V2.
  await owner.goto(projectUrl);
  await addWidget(owner, 'GAUGE', 1, { Minimum: '0', Maximum: '100', Unit: '°C', Title: 'Temperature' });
  await addWidget(owner, 'SLIDER', 2, { Minimum: '0', Maximum: '100', Step: '1', Title: 'Fan speed' });

  // A value published over MQTT with the device's credentials shows in the gauge within 1 s.
  device = await connectAsync(stack.config.MQTT_URL, { protocolVersion: 5, username: deviceId, password: token, reconnectPeriod: 0 });
  const commands: Array<{ topic: string; value: string }> = [];
  device.on('message', (topic, payload) => commands.push({ topic, value: payload.toString() }));
  await device.subscribeAsync(`${root}/${deviceId}/pin/+/set`, { qos: 1 });
  await device.publishAsync(`${root}/${deviceId}/status`, 'online');
  await device.publishAsync(`${root}/${deviceId}/pin/V1`, '23.5');
  await owner.locator('[data-testid="widget-GAUGE"] [data-value="23.5"]').waitFor({ timeout: 1000 });
  await expect(widgetValue(owner, 'GAUGE').textContent()).resolves.toContain('23.5°C');

  // Moving the slider delivers the value to the device's /set topic.
  await owner.getByTestId('widget-SLIDER').getByLabel('Slider').fill('70');
  await eventually(() => expect(commands).toContainEqual({ topic: `${root}/${deviceId}/pin/V2/set`, value: '70' }));
  await screenshot(owner, 'dashboard');

  // A threshold rule's notification raises the unread badge.
  await owner.goto(`${projectUrl}/rules`);
  await owner.getByRole('button', { name: 'New rule' }).click();
  await owner.getByLabel('Condition').selectOption('gt');
  await owner.getByLabel('Rule pin').fill('1');
  await owner.getByLabel('Threshold').fill('30');
  await owner.getByLabel('Message').fill('Too hot: {value} °C');
  await owner.getByRole('button', { name: 'Save rule' }).click();
  await owner.getByRole('cell', { name: 'Too hot: {value} °C' }).waitFor();
  await screenshot(owner, 'rules');
  await expect(owner.getByTestId('unread-badge').count()).resolves.toBe(0);
  await device.publishAsync(`${root}/${deviceId}/pin/V1`, '35');
  await owner.getByTestId('unread-badge').filter({ hasText: '1' }).waitFor({ timeout: 15_000 });
  await owner.getByRole('link', { name: /Notifications/ }).click();
  await owner.getByText('Too hot: 35 °C').waitFor();
  await screenshot(owner, 'notifications');

  // The device list shows the device online, live (it reported `online` over MQTT above).
  await owner.goto(`${projectUrl}/devices`);
  await owner.getByTestId(`status-${deviceId}`).filter({ hasText: 'online' }).waitFor({ timeout: 15_000 });
  await screenshot(owner, 'devices');

  // A viewer (on the other node) sees the dashboard read-only and cannot write.
  const viewerUser = await registerUser(node1.request, 'Vic Viewer');
  const editorUser = await registerUser(node1.request, 'Eddie Editor');
  await owner.goto(`${projectUrl}/members`);
  for (const [member, role] of [
    [viewerUser, 'viewer'],
    [editorUser, 'editor'],
  ] as const) {
    await owner.getByLabel('Member email').fill(member.email);
    await owner.getByLabel('Member role').selectOption(role);
    await owner.getByRole('button', { name: 'Add member' }).click();
    await owner.getByRole('cell', { name: member.email }).waitFor();
  }
  await screenshot(owner, 'members');

  const viewer = await browserAt();
  await signIn(viewer, node1.baseUrl, viewerUser.email);
  await viewer.goto(`${node1.baseUrl}${new URL(projectUrl).pathname}`);
  await viewer.getByTestId('read-only').waitFor();
  await expect(viewer.getByRole('button', { name: 'Add widget' }).count()).resolves.toBe(0);
  await expect(viewer.getByTestId('widget-SLIDER').getByLabel('Slider').isDisabled()).resolves.toBe(true);
  await expect(viewer.getByLabel('Edit widget').count()).resolves.toBe(0);
  await screenshot(viewer, 'dashboard-viewer');

  // Two browsers on two gateway nodes see each other's writes.
  const editor = await browserAt();
  await signIn(editor, node1.baseUrl, editorUser.email);
  await editor.goto(`${node1.baseUrl}${new URL(projectUrl).pathname}`);
  await editor.locator('[data-testid="widget-SLIDER"] [data-value="70"]').waitFor();
  await editor.getByTestId('widget-SLIDER').getByLabel('Slider').fill('15');
  await owner.goto(projectUrl);
  await owner.locator('[data-testid="widget-SLIDER"] [data-value="15"]').waitFor();
  await owner.getByTestId('widget-SLIDER').getByLabel('Slider').fill('55');
  await editor.locator('[data-testid="widget-SLIDER"] [data-value="55"]').waitFor();
  await viewer.locator('[data-testid="widget-SLIDER"] [data-value="55"]').waitFor();
  await eventually(() => expect(commands).toContainEqual({ topic: `${root}/${deviceId}/pin/V2/set`, value: '55' }));
});
