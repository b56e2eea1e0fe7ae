/**
 * Issue 39 in the console (DESIGN §13), in a real browser on a real stack with the twin worker: a
 * firmware image uploaded and listed with its version, size and sha256; the fleet filtered by a
 * tag, every matching device selected, a command job started on them; the Jobs screen following
 * it live to completed, and its detail showing each device's command receipt. The devices are
 * MQTT.js clients that echo their commands, as in test/jobs/command-jobs.test.ts.
 */
import { createHash } from 'node:crypto';
import type mqtt from 'mqtt';
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, screenshot, signIn } from '../helpers/browser';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';
import { onlineDevice } from '../jobs/support';
import { watchProblems } from './page-checks';

jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let page: Page;
let user: TestUser;
let projectId: string;
const clients: mqtt.MqttClient[] = [];

/** A device of the project with `tags`, online and echoing every command it gets (the echo acknowledges it). */
async function echoingDevice(name: string, tags: string[]): Promise<void> {
  const device = await createDevice(stack.request, user, projectId, name);
  await stack.request('PATCH', `/api/v1/devices/${device.id}`, { token: user.token, body: { tags } });
  const root = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}`;
  clients.push(
    await onlineDevice(stack, user, device, ['pin/+/set'], (client, topic, payload) => {
      void client.publishAsync(`${root}/pin/${topic.split('/')[3]}`, payload, { qos: 1 });
    }),
  );
}

beforeAll(async () => {
  stack = await startStack({ worker: true });
  user = await registerUser(stack.request, 'Otto Operator');
  projectId = (await createProject(stack.request, user, 'Vineyard')).id;
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, stack.baseUrl, user);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(clients.map((c) => c.endAsync()));
  await stack?.stop();
});

test('upload a firmware image, filter the fleet by tag, run a command job on the matches and watch it complete live', async () => {
  const { problems } = watchProblems(page);

  await page.getByRole('link', { name: 'Firmware' }).click();
  await page.getByText('No firmware images in this project yet.').waitFor();
  const image = Buffer.from('valve firmware 2.0.0\n'.repeat(100));
  await page.getByLabel('Firmware file').setInputFiles({ name: 'valve.bin', mimeType: 'application/octet-stream', buffer: image });
  await page.getByLabel('Firmware version').fill('2.0.0');
  await page.getByRole('button', { name: 'Upload' }).click();
  const imageRow = page.getByTestId('firmware-row').filter({ hasText: 'valve.bin' });
  await imageRow.getByTestId('firmware-sha256').getByText(createHash('sha256').update(image).digest('hex')).waitFor();
  await imageRow.getByTestId('firmware-version').getByText('2.0.0').waitFor();
  await imageRow.getByText('2.1 KiB').waitFor();

  // Online from here (a minute without a message would take them offline).
  for (const name of ['Valve 1', 'Valve 2', 'Valve 3']) await echoingDevice(name, ['north']);
  await echoingDevice('Pump', ['south']);
  await page.getByRole('link', { name: 'Fleet' }).click();
  await page.getByLabel('Tag filter').fill('north');
  await page.getByRole('heading', { name: 'Devices (3 found)' }).waitFor();
  await page.getByTestId('fleet-online').filter({ hasText: '3 online' }).waitFor();
  expect((await page.getByTestId('fleet-table').getByRole('link').allTextContents()).sort()).toEqual(['Valve 1', 'Valve 2', 'Valve 3']);
  await page.getByRole('button', { name: 'Select all 3 matching' }).click();
  const form = page.getByTestId('new-job-form');
  await form.getByLabel('Job pin').fill('V3');
  await form.getByLabel('Job value').fill('open');
  // One send every 2 s: the job runs long enough to be seen running.
  await form.getByLabel('At most per minute').fill('30');
  await screenshot(page, 'fleet');
  await form.getByRole('button', { name: 'Start job' }).click();
  await page.getByRole('heading', { name: 'Write V3 = open' }).waitFor();

  await page.getByRole('link', { name: 'Jobs', exact: true }).click();
  const row = page.getByTestId('job-row').filter({ hasText: 'Write V3 = open' });
  await row.locator('[data-testid="job-progress"][data-state="running"]').waitFor();
  // No reload from here on: what changes comes from the `job` events.
  await row.locator('[data-testid="job-progress"][data-state="completed"]').waitFor({ timeout: 60_000 });
  await row.getByTestId('job-done').getByText('3 of 3 done').waitFor();
  await row.getByTestId('job-count-acknowledged').getByText('acknowledged 3').waitFor();
  await row.getByText('tag north').waitFor();
  await screenshot(page, 'jobs');

  await row.getByRole('link', { name: 'Write V3 = open' }).click();
  const devices = page.getByTestId('job-device');
  await devices.nth(2).waitFor();
  expect(await devices.count()).toBe(3);
  for (const device of await devices.all()) await device.getByTestId('job-device-receipt').getByText('acknowledged').first().waitFor();
  expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);

  const jobs = await stack.request('GET', `/api/v1/jobs?projectId=${projectId}`, { token: user.token });
  expect(jobs.body.data.jobs).toEqual([
    expect.objectContaining({
      state: 'completed',
      target: { filter: { tag: 'north' } },
      action: { type: 'command', pin: 'V3', value: 'open' },
      total: 3,
      counts: expect.objectContaining({ acknowledged: 3 }),
    }),
  ]);
  expect(problems).toEqual([]);
});
