import type { Page } from 'playwright-core';
import { KEYS_BY_TYPE } from '../../common/widget-config';
import { type Browser, openBrowser, screenshot, signIn } from '../helpers/browser';
import { createDevice, createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

jest.setTimeout(120_000);

let stack: Stack;
let browser: Browser;
let page: Page;
let user: TestUser;
let projectId: string;
let deviceId: string;

/** A value each type shows visibly; its widget sits on pin = its index. */
const VALUES: Record<string, string> = {
  MAP: '52.5200,13.4050',
  LOCATION: '48.8566,2.3522',
  COLOR_PICKER: '#ff8800',
  IMAGE: 'sensor.jpg',
  SEGMENTED_CONTROL: 'Auto',
  LCD: 'Hello LCD',
  JOYSTICK: '10,-20',
  TEXT_INPUT: 'hello',
  TERMINAL: 'boot ok',
  KEYPAD: '1234',
  TIMER: '3600',
};
const TYPES = Object.keys(KEYS_BY_TYPE);

beforeAll(async () => {
  stack = await startStack({ worker: true });
  user = await registerUser(stack.request, 'Wanda Widgets');
  projectId = (await createProject(stack.request, user, 'All widgets')).id;
  deviceId = (await createDevice(stack.request, user, projectId, 'Test bench')).id;
  let i = 0;
  for (const type of TYPES) {
    const config = type === 'SEGMENTED_CONTROL' ? { options: ['Off', 'Auto', 'On'] } : {};
    const res = await stack.request('POST', '/api/v1/widgets', {
      token: user.token,
      body: { type, projectId, deviceId, pin: i, layout: { x: (i % 4) * 3, y: Math.floor(i / 4) * 3, w: 3, h: 3 }, config },
    });
    if (res.status !== 201) throw new Error(`widget ${type}: ${res.status} ${res.text}`);
    const value = VALUES[type] ?? String(20 + i);
    const wrote = await stack.request('POST', `/api/v1/data/${deviceId}/${i}`, { token: user.token, body: { value } });
    if (wrote.status !== 201) throw new Error(`value for ${type}: ${wrote.status} ${wrote.text}`);
    i++;
  }
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, stack.baseUrl, user);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

test('all 29 widget types render with their latest value', async () => {
  expect(TYPES).toHaveLength(29);
  await page.goto(`${stack.baseUrl}/projects/${projectId}`);
  for (const [i, type] of TYPES.entries()) {
    const value = VALUES[type] ?? String(20 + i);
    await page
      .locator(`[data-testid="widget-${type}"] [data-testid="widget-value"]`)
      .and(page.locator(`[data-value=${JSON.stringify(value)}]`))
      .waitFor();
  }
  await page.setViewportSize({ width: 1280, height: 1900 });
  await screenshot(page, 'all-widgets');
  await page.setViewportSize({ width: 1280, height: 860 });
});

test('dragging a widget persists its layout through PATCH', async () => {
  const widgets = (await stack.request('GET', `/api/v1/widgets?projectId=${projectId}`, { token: user.token })).body.data.widgets;
  const led = widgets.find((w: { type: string }) => w.type === 'LED');
  await page.goto(`${stack.baseUrl}/projects/${projectId}`);
  const handle = page.locator(`[data-widget-id="${led.id}"] .widget-handle strong`);
  await handle.waitFor();
  const box = await handle.boundingBox();
  if (!box) throw new Error('no LED on the page');
  await page.mouse.move(box.x + 5, box.y + 5);
  await page.mouse.down();
  await page.mouse.move(box.x + 400, box.y + 5, { steps: 10 });
  await page.mouse.up();
  await eventually(async () => {
    const res = await stack.request('GET', `/api/v1/widgets/${led.id}`, { token: user.token });
    expect(res.body.data.layout.x).toBeGreaterThan(led.layout.x);
  });
});

test('a pin lock shows PIN_LOCKED next to the widget that wrote', async () => {
  await page.goto(`${stack.baseUrl}/projects/${projectId}`);
  const slider = TYPES.indexOf('SWITCH');
  await stack.request('PUT', `/api/v1/devices/${deviceId}/pins/${slider}/lock`, { token: user.token });
  await page.getByTestId('widget-SWITCH').getByRole('switch').click();
  await page.getByTestId('widget-SWITCH').getByRole('alert').filter({ hasText: 'PIN_LOCKED' }).waitFor();
  await stack.request('DELETE', `/api/v1/devices/${deviceId}/pins/${slider}/lock`, { token: user.token });
});

test('an oversized value shows VALUE_TOO_LARGE next to the widget that wrote', async () => {
  await page.goto(`${stack.baseUrl}/projects/${projectId}`);
  const widget = page.getByTestId('widget-TEXT_INPUT');
  await widget.getByLabel('Text').fill('x'.repeat(1025));
  await widget.getByRole('button', { name: 'Send' }).click();
  await widget.getByRole('alert').filter({ hasText: 'VALUE_TOO_LARGE' }).waitFor();
});

test('a chart widget opens with the stored points of the last hour, not only the latest value', async () => {
  const pin = TYPES.indexOf('GRAPH');
  for (const minutesAgo of [30, 20, 10]) {
    const timestamp = new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const res = await stack.request('POST', `/api/v1/data/${deviceId}/${pin}`, {
      token: user.token,
      body: { value: String(minutesAgo), timestamp },
    });
    expect(res.status).toBe(201);
  }
  await page.goto(`${stack.baseUrl}/projects/${projectId}`);
  await page.locator('[data-testid="widget-GRAPH"] [data-testid="widget-value"][data-series="4"]').waitFor();
});

test('after a dropped connection the page resubscribes and refetches what changed meanwhile', async () => {
  const pin = TYPES.indexOf('VALUE_DISPLAY');
  await page.goto(`${stack.baseUrl}/projects/${projectId}`);
  const display = page.locator('[data-testid="widget-VALUE_DISPLAY"] [data-testid="widget-value"]');
  await display.and(page.locator(`[data-value="${20 + pin}"]`)).waitFor();
  // This node's sockets only: through the adapter, every test file's stack on the run's Redis would lose its sockets too.
  stack.composed.gateway.sockets.io.local.disconnectSockets(true);
  await page.getByTestId('reconnecting').waitFor();
  const missed = await stack.request('POST', `/api/v1/data/${deviceId}/${pin}`, { token: user.token, body: { value: '777' } });
  expect(missed.status).toBe(201);
  await display.and(page.locator('[data-value="777"]')).waitFor();
  await page.getByTestId('reconnecting').waitFor({ state: 'detached' });
  // Resubscribed: a live update after the reconnect arrives without a reload.
  await stack.request('POST', `/api/v1/data/${deviceId}/${pin}`, { token: user.token, body: { value: '778' } });
  await display.and(page.locator('[data-value="778"]')).waitFor();
});

test('device, history and account screens', async () => {
  await page.goto(`${stack.baseUrl}/devices/${deviceId}`);
  await page.getByTestId('pin-value-V3').filter({ hasText: '23' }).waitFor();
  await screenshot(page, 'device');
  await page.goto(`${stack.baseUrl}/devices/${deviceId}/pins/3`);
  await page.getByRole('heading', { name: '1 point' }).waitFor();
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const csv = await (await download).createReadStream();
  const text = await new Promise<string>((resolve) => {
    let out = '';
    csv.on('data', (c) => (out += String(c)));
    csv.on('end', () => resolve(out));
  });
  expect(text).toMatch(/^timestamp,value\n.+,23\n?$/);
  await screenshot(page, 'history');
  // The external REST API, which keys authenticate, needs Pro or higher (SPEC §8).
  await setPlan(stack.request, user, 'pro');
  await page.goto(`${stack.baseUrl}/account`);
  await page.getByLabel('API key name').fill('Home Assistant');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const key = await page.getByTestId('secret-Key Home Assistant').textContent();
  expect(key).toMatch(/^dds_/);
  await page.getByRole('cell', { name: 'Home Assistant' }).waitFor();
  await screenshot(page, 'account');
});
