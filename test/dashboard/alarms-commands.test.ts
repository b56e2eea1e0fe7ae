/**
 * The console's alarms list (acknowledge, clear) and a command's state next to the input widget
 * that sent it (issue 17, docs/alarms.md, docs/commands.md), in a real browser on a real stack.
 */
import type mqtt from 'mqtt';
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, screenshot, signIn } from '../helpers/browser';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

jest.setTimeout(120_000);

let stack: Stack;
let browser: Browser;
let page: Page;
let user: TestUser;
let projectId: string;
let device: { id: string; token: string };
let client: mqtt.MqttClient | undefined;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  user = await registerUser(stack.request, 'Alma Alarms');
  projectId = (await createProject(stack.request, user, 'Boiler room')).id;
  device = await createDevice(stack.request, user, projectId, 'Boiler');
  const rule = await stack.request('POST', '/api/v1/notifications/rules', {
    token: user.token,
    body: { projectId, deviceId: device.id, condition: 'gt', pin: 1, threshold: 80, severity: 'critical', message: 'hot {value}' },
  });
  if (rule.status !== 201) throw new Error(`rule: ${rule.status} ${rule.text}`);
  const widget = await stack.request('POST', '/api/v1/widgets', {
    token: user.token,
    body: { type: 'SWITCH', projectId, deviceId: device.id, pin: 2, layout: { x: 0, y: 0, w: 3, h: 3 }, config: { label: 'Pump' } },
  });
  if (widget.status !== 201) throw new Error(`widget: ${widget.status} ${widget.text}`);
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, stack.baseUrl, user);
});

afterAll(async () => {
  await client?.endAsync(true);
  await browser?.close();
  await stack?.stop();
});

test('the alarms tab lists a raised alarm live; acknowledge and clear act on it', async () => {
  await page.goto(`${stack.baseUrl}/projects/${projectId}/alarms`);
  await page.getByText('No alarms.').waitFor();
  await stack.request('POST', `/api/v1/data/${device.id}/1`, { token: user.token, body: { value: '95' } });
  const alarm = page.getByTestId('alarm');
  await alarm.and(page.locator('[data-state="active"][data-acknowledged="false"]')).waitFor({ timeout: 20_000 });
  await alarm.getByText('Boiler · V1 = 95').waitFor();
  await alarm.getByText('critical').waitFor();
  await screenshot(page, 'alarms');

  // The critical rule's notice reads as words and goes out at priority high (docs/alarms.md).
  await page.goto(`${stack.baseUrl}/notifications`);
  const notice = page.getByTestId('notification').filter({ hasText: 'Critical: V1 above 80' });
  await notice.and(page.locator('[data-priority="high"]')).waitFor();
  await notice.getByText('hot 95').waitFor();
  await page.goto(`${stack.baseUrl}/projects/${projectId}/alarms`);

  await alarm.getByRole('button', { name: 'Acknowledge' }).click();
  await alarm.and(page.locator('[data-acknowledged="true"]')).waitFor();
  await alarm.getByRole('button', { name: 'Clear' }).click();
  await page.getByText('No alarms.').waitFor(); // the list shows active alarms by default
  await page.getByLabel('State filter').selectOption('cleared');
  await page.getByTestId('alarm').and(page.locator('[data-state="cleared"]')).waitFor();
  const stored = (await stack.request('GET', `/api/v1/alarms?projectId=${projectId}`, { token: user.token })).body.data.alarms;
  expect(stored).toEqual([expect.objectContaining({ state: 'cleared', acknowledged: true, acknowledgedBy: user.id })]);
});

test('a switch shows its command queued while the device is offline, then sent and acknowledged', async () => {
  await page.goto(`${stack.baseUrl}/projects/${projectId}`);
  const widget = page.getByTestId('widget-SWITCH');
  await widget.getByRole('switch').click();
  const state = widget.getByTestId('command-state');
  await state.and(page.locator('[data-state="queued"]')).waitFor();

  client = await connectAsDevice(stack.config.MQTT_URL, device);
  const root = stack.config.MQTT_TOPIC_ROOT;
  const received: string[] = [];
  client.on('message', (topic, payload) => topic.endsWith('/V2/set') && received.push(payload.toString()));
  await client.subscribeAsync(`${root}/${device.id}/pin/+/set`, { qos: 1 });
  await client.publishAsync(`${root}/${device.id}/status`, 'online', { qos: 1 });
  await state.and(page.locator('[data-state="sent"]')).waitFor({ timeout: 20_000 });
  await eventually(() => expect(received).toHaveLength(1));
  await client.publishAsync(`${root}/${device.id}/pin/V2`, received[0] as string, { qos: 1 });
  await state.and(page.locator('[data-state="acknowledged"]')).waitFor();
  await screenshot(page, 'command-state');
});

test('the rule form sets the alarm settings of a threshold rule', async () => {
  await page.goto(`${stack.baseUrl}/projects/${projectId}/rules`);
  await page.getByRole('button', { name: 'New rule' }).click();
  await page.getByLabel('Rule pin').fill('3');
  await page.getByLabel('Threshold').fill('30');
  await page.getByLabel('Severity').selectOption('major');
  await page.getByLabel('Clears only past').fill('25');
  await page.getByLabel('Re-notify seconds').fill('600');
  await page.getByLabel('For seconds').fill('5');
  await page.getByRole('button', { name: 'Save rule' }).click();
  await eventually(async () => {
    const rules = (await stack.request('GET', `/api/v1/notifications/rules?projectId=${projectId}`, { token: user.token })).body.data.rules;
    expect(rules).toContainEqual(
      expect.objectContaining({ pin: 3, threshold: 30, severity: 'major', clearThreshold: 25, renotifySeconds: 600, forSeconds: 5 }),
    );
  });
});
