/**
 * The console's screenshots in docs/screenshots/<screen>-1280.png and <screen>-390.png, of one
 * greenhouse project (`npm run screenshots` makes them afresh). Every screen
 * is also checked at 390 px: nothing wider than the window, and no console error on the way.
 */
import path from 'node:path';
import type { MqttClient } from 'mqtt';
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, SCREENSHOTS, signIn } from '../helpers/browser';
import { connectAsDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { importPoints } from './console-helpers';
import { sidewaysOverflow, watchProblems } from './page-checks';

jest.setTimeout(240_000);

let stack: Stack;
let browser: Browser;
let page: Page;
let user: TestUser;
let projectId: string;
const devices: Record<string, { id: string; token: string }> = {};
const clients: MqttClient[] = [];

const DEVICES: Array<[string, string[]]> = [
  ['Climate sensor', ['greenhouse', 'climate']],
  ['Door contact', ['greenhouse']],
  ['Light meter', ['greenhouse']],
  ['Boiler', ['basement']],
  ['Soil probe 1', ['field']],
  ['Soil probe 2', ['field']],
  ['Soil probe 3', ['field']],
];

async function post(pathname: string, body: unknown): Promise<{ id: string; token: string }> {
  const res = await stack.request('POST', pathname, { token: user.token, body });
  if (res.status !== 201) throw new Error(`${pathname}: ${res.status} ${res.text}`);
  return res.body.data;
}

const write = (device: string, pin: number, value: string) => post(`/api/v1/data/${devices[device]?.id}/${pin}`, { value });

async function seed(): Promise<void> {
  user = await registerUser(stack.request, 'Olivia Operator');
  projectId = (await createProject(stack.request, user, 'Greenhouse')).id;
  for (const [name, tags] of DEVICES) devices[name] = await post('/api/v1/devices', { name, projectId, description: 'greenhouse', tags });
  const climate = devices['Climate sensor']?.id as string;
  const widget = (
    deviceId: string,
    type: string,
    pin: number | string,
    layout: [number, number, number, number],
    config: Record<string, unknown>,
  ) =>
    post('/api/v1/widgets', { type, projectId, deviceId, pin, layout: { x: layout[0], y: layout[1], w: layout[2], h: layout[3] }, config });
  await widget(climate, 'GAUGE', 0, [0, 0, 3, 3], { label: 'Temperature', suffix: ' °C', min: 0, max: 40 });
  await widget(devices['Door contact']?.id as string, 'LED', 'D0', [3, 0, 3, 3], { label: 'Door open' });
  await widget(devices['Light meter']?.id as string, 'GAUGE', 'A0', [6, 0, 3, 3], { label: 'Light', min: 0, max: 1023 });
  await widget(climate, 'SWITCH', 2, [9, 0, 3, 3], { label: 'Fan' });
  await widget(climate, 'GRAPH', 1, [0, 3, 8, 4], { label: 'Humidity', suffix: ' %' });
  await widget(climate, 'SPARKLINE', 0, [8, 3, 4, 4], { label: 'Temperature, last hour', suffix: ' °C' });

  const now = Date.now();
  const hour = (f: (i: number) => number) =>
    Array.from({ length: 60 }, (_, i) => ({ at: new Date(now - (60 - i) * 58_000), value: f(i).toFixed(1) }));
  await importPoints(
    stack.request,
    user,
    climate,
    1,
    hour((i) => 55 + 8 * Math.sin(i / 9)),
  );
  await importPoints(
    stack.request,
    user,
    climate,
    0,
    hour((i) => 21 + 2 * Math.cos(i / 11)),
  );
  await write('Climate sensor', 0, '23.4');
  await write('Climate sensor', 2, '1');

  const root = stack.config.MQTT_TOPIC_ROOT;
  for (const [name, pin, value] of [
    ['Door contact', 'D0', '1'],
    ['Light meter', 'A0', '640'],
  ] as const) {
    const made = devices[name] as { id: string; token: string };
    const client = await connectAsDevice(stack.config.MQTT_URL, made);
    clients.push(client);
    await client.publishAsync(`${root}/${made.id}/status`, 'online', { qos: 1 });
    await client.publishAsync(`${root}/${made.id}/pin/${pin}`, value, { qos: 1 });
  }

  const rule = (device: string, pin: number, threshold: number, condition: string, severity: string, message: string) =>
    post('/api/v1/notifications/rules', {
      projectId,
      deviceId: devices[device]?.id,
      pin,
      condition,
      threshold,
      severity,
      message,
      channels: ['inApp'],
    });
  await rule('Boiler', 0, 80, 'gt', 'critical', 'Boiler overheating: {value} °C');
  await rule('Soil probe 1', 0, 10, 'lt', 'warning', 'Soil is dry: {value} %');
  await rule('Climate sensor', 1, 90, 'gt', 'minor', 'Humid: {value} %');
  await write('Boiler', 0, '85');
  await write('Soil probe 1', 0, '6');
  await eventually(async () => {
    const alarms = await stack.request('GET', `/api/v1/alarms?projectId=${projectId}&state=active`, { token: user.token });
    expect(alarms.body.data.total).toBe(2);
  }, 30_000);
}

/** The screens, each with what shows it is ready. */
const SCREENS: Array<{ name: string; path: () => string; ready: (p: Page) => Promise<void> }> = [
  {
    name: 'console-dashboard',
    path: () => `/projects/${projectId}`,
    ready: async (p) => {
      await p.locator('[data-testid="dashboard"][data-live="synced"]').waitFor();
      await p.locator('[data-testid="widget-GRAPH"] .chart-tick').first().waitFor();
      await p.locator('[data-testid="widget-GAUGE"] [data-value="640"]').waitFor();
    },
  },
  {
    name: 'console-widget-form',
    path: () => `/projects/${projectId}`,
    ready: async (p) => {
      await p.getByRole('button', { name: 'Add widget' }).click();
      await p.getByTestId('widget-form').getByLabel('Pin type').selectOption('A');
    },
  },
  {
    name: 'console-devices',
    path: () => `/projects/${projectId}/devices`,
    ready: async (p) => {
      await p.getByTestId('count-online').filter({ hasText: '2 online' }).waitFor({ timeout: 20_000 });
      await p.getByRole('link', { name: 'Soil probe 3' }).waitFor();
    },
  },
  {
    name: 'console-device',
    path: () => `/devices/${devices['Climate sensor']?.id}`,
    ready: async (p) => {
      await p.getByTestId('pin-value-V1').waitFor();
      await p.getByTestId('simulate-command').waitFor();
    },
  },
  {
    name: 'console-history',
    path: () => `/devices/${devices['Climate sensor']?.id}/pins/V1`,
    ready: async (p) => {
      await p.getByRole('heading', { name: '60 points' }).waitFor();
      await p.locator('.chart-tick').nth(1).waitFor();
    },
  },
  {
    name: 'console-alarms',
    path: () => `/projects/${projectId}/alarms`,
    ready: async (p) => void (await p.getByTestId('alarm').nth(1).waitFor()),
  },
  {
    name: 'console-notifications',
    path: () => '/notifications',
    ready: async (p) => void (await p.getByTestId('notification').nth(1).waitFor({ timeout: 20_000 })),
  },
  {
    name: 'console-account',
    path: () => '/account',
    ready: async (p) => void (await p.getByTestId('api-key-plan').waitFor()),
  },
];

beforeAll(async () => {
  stack = await startStack({ worker: true });
  await seed();
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, stack.baseUrl, user);
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync()));
  await browser?.close();
  await stack?.stop();
});

test.each([1280, 390])('every screen at %i px: a full-page screenshot, nothing overflowing sideways, no console error', async (width) => {
  await page.setViewportSize({ width, height: width > 400 ? 860 : 844 });
  const { problems } = watchProblems(page);
  for (const screen of SCREENS) {
    await page.goto(`${stack.baseUrl}${screen.path()}`);
    await screen.ready(page);
    expect([screen.name, (await sidewaysOverflow(page)) <= 0]).toEqual([screen.name, true]);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${screen.name}-${width}.png`), fullPage: true });
  }
  expect(problems).toEqual([]);
});

test('a page, project or device that is not there says so and links back', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${stack.baseUrl}/devices/00000000-0000-4000-8000-000000000000`);
  await page.getByRole('heading', { name: 'Device not found' }).waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'console-not-found-390.png'), fullPage: true });
  await page.getByRole('link', { name: '← Back to your projects' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  await page.goto(`${stack.baseUrl}/nowhere`);
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
});
