/**
 * Issue 37, devices: the list pages through a fleet, searches and filters it and counts online and
 * offline; the connect panel shows the broker set for this browser and its command works as the device.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, signIn } from '../helpers/browser';
import { createDevice, createProject, mirrorStatus, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';

jest.setTimeout(180_000);

const run = promisify(execFile);

let stack: Stack;
let browser: Browser;
let page: Page;
let user: TestUser;

beforeAll(async () => {
  stack = await startStack();
  user = await registerUser(stack.request, 'Fiona Fleet');
  await setPlan(stack.request, user, 'pro'); // 101 devices: more than Free's 10
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, stack.baseUrl, user);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const position = () => page.getByTestId('pager-position');

test('the device list pages to device 101, searches by name, filters by tag and status, and counts online and offline', async () => {
  const project = await createProject(stack.request, user, 'Fleet');
  const ids: string[] = [];
  // Ten at a time (their order within a ten is the server's); device-101 last.
  for (let first = 1; first <= 101; first += 10) {
    const batch = Array.from({ length: Math.min(10, 102 - first) }, (_, i) => first + i);
    const made = await Promise.all(
      batch.map(async (n) => {
        const name = `device-${String(n).padStart(3, '0')}`;
        const res = await stack.request('POST', '/api/v1/devices', {
          token: user.token,
          body: { name, projectId: project.id, tags: n % 10 === 0 ? ['north'] : [] },
        });
        if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
        return res.body.data.id as string;
      }),
    );
    ids.push(...made);
  }
  await mirrorStatus(stack.redis, ids[0] as string, 'online');

  await page.goto(`${stack.baseUrl}/projects/${project.id}/devices`);
  await page.getByRole('heading', { name: 'Devices (101)' }).waitFor();
  await page.getByTestId('count-online').filter({ hasText: '1 online' }).waitFor();
  await page.getByTestId('count-offline').filter({ hasText: '100 offline' }).waitFor();
  await position().filter({ hasText: '1–20 of 101 · page 1 of 6' }).waitFor();
  for (let n = 2; n <= 6; n++) {
    await page.getByRole('button', { name: 'Next →' }).click();
    await position()
      .filter({ hasText: `page ${n} of 6` })
      .waitFor();
  }
  await page.getByRole('link', { name: 'device-101' }).waitFor();
  await position().filter({ hasText: '101–101 of 101' }).waitFor();
  expect(await page.getByRole('button', { name: 'Next →' }).isDisabled()).toBe(true);

  await page.getByLabel('Devices per page').selectOption('100');
  await page.getByRole('link', { name: 'device-100' }).waitFor();
  expect(await page.getByTestId('device-table').locator('tbody tr').count()).toBe(100);

  await page.getByLabel('Search devices by name').fill('DEVICE-05');
  await page.getByRole('heading', { name: 'Devices (10 found)' }).waitFor();
  expect((await page.getByTestId('device-table').getByRole('link').allTextContents()).sort()).toEqual(
    Array.from({ length: 10 }, (_, i) => `device-05${i}`),
  );

  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByLabel('Tag filter').fill('north');
  await page.getByRole('heading', { name: 'Devices (10 found)' }).waitFor();
  await page.getByRole('link', { name: 'device-100' }).waitFor();

  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByTestId('count-online').click();
  await page.getByRole('heading', { name: 'Devices (1 found)' }).waitFor();
  await page.getByRole('link', { name: 'device-001' }).waitFor();
  await page.getByLabel('Search devices by name').fill('device-002');
  await page.getByText('No device matches these filters.').waitFor();

  // The widget form reaches device 101 too: its device list is searched by name.
  await page.goto(`${stack.baseUrl}/projects/${project.id}`);
  await page.getByRole('button', { name: 'Add widget' }).click();
  const form = page.getByTestId('widget-form');
  await form.getByText('The first 100 of 101 matches: type to narrow.').waitFor();
  await form.getByLabel('Find a device by name').fill('device-101');
  await form.getByLabel('Widget device').locator('option', { hasText: 'device-101' }).waitFor({ state: 'attached' });
  await form.getByLabel('Widget device').selectOption({ label: 'device-101' });
  await form.getByRole('button', { name: 'Add widget' }).click();
  await page.getByTestId('widget-GAUGE').getByText('device-101 · V0').waitFor();
});

test('the connect panel shows the real broker address and topic root, and its mosquitto_pub command publishes as the device', async () => {
  const project = await createProject(stack.request, user, 'Connect');
  const made = await createDevice(stack.request, user, project.id, 'Boiler');
  const { MQTT_URL, MQTT_TOPIC_ROOT } = stack.config;

  await page.goto(`${stack.baseUrl}/devices/${made.id}`);
  await page.getByTestId('broker-url').filter({ hasText: MQTT_URL }).waitFor();
  expect(await page.getByTestId('topic-root').textContent()).toBe(MQTT_TOPIC_ROOT);
  const { hostname, port } = new URL(MQTT_URL);
  expect(await page.getByTestId('publish-command').textContent()).toContain(`-h ${hostname} -p ${port}`);
  expect(await page.getByTestId('publish-command').textContent()).toContain(`-t ${MQTT_TOPIC_ROOT}/${made.id}/pin/V0`);
  expect(await page.getByTestId('simulate-command').textContent()).toContain(`--project ${project.id} --device-name Boiler`);

  // A new token is shown once, inside commands that work as they are.
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Regenerate token' }).click();
  const credentials = page.getByTestId('device-credentials');
  const token = (await credentials.getByTestId('secret-MQTT password (dt_ token)').textContent()) as string;
  const command = (await credentials.getByTestId('publish-command').textContent()) as string;
  expect(command).toContain(`-P ${token}`);
  await run('bash', ['-c', command], { timeout: 15_000 });
  await page.getByTestId('pin-value-V0').filter({ hasText: '42' }).waitFor();
});

test('a Free account is told what an API key does on its plan before it makes one', async () => {
  const free = await registerUser(stack.request, 'Fred Free');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, stack.baseUrl, free);
  await page.goto(`${stack.baseUrl}/account`);
  await page.getByTestId('plan-facts').getByText('not included; they need Pro or higher.').waitFor();
  const notice = page.getByTestId('api-key-plan');
  expect(await notice.textContent()).toContain('a key works on the management API only');
  await page.getByLabel('API key name').fill('Nightly export');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const key = (await page.getByTestId('secret-Key Nightly export').textContent()) as string;
  expect((await stack.request('GET', '/api/v1/projects', { token: key })).status).toBe(200);
});
