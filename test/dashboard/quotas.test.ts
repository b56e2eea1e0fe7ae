/**
 * The console shows the plan's quotas with their use on the account screen, and a create over a
 * quota says which resource and the limit where it failed (docs/limits.md "Quotas").
 */
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, screenshot, signIn } from '../helpers/browser';
import { createDevice, createProject, registerUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';

jest.setTimeout(120_000);

let stack: Stack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  stack = await startStack({ overrides: { QUOTA_FREE_DEVICES: '2' } });
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

test('the account screen shows each quota used / limit; a device create over the quota shows QUOTA_EXCEEDED with the resource and limit', async () => {
  const user = await registerUser(stack.request);
  const project = await createProject(stack.request, user, 'Greenhouse');
  await createDevice(stack.request, user, project.id, 'Sensor 1');
  await signIn(page, stack.baseUrl, user);

  await page.goto(`${stack.baseUrl}/account`);
  await page.getByTestId('quota-devices').filter({ hasText: '1 / 2' }).waitFor();
  expect(await page.getByTestId('quota-projects').textContent()).toContain('1 / 5');
  expect(await page.getByTestId('quota-apiKeys').textContent()).toContain('0 / 2');

  await page.goto(`${stack.baseUrl}/projects/${project.id}`);
  await page.getByRole('link', { name: 'Devices' }).click();
  await page.getByLabel('Device name').fill('Sensor 2');
  await page.getByRole('button', { name: 'Create device' }).click();
  await page.getByTestId('device-credentials').waitFor();
  await page.getByRole('button', { name: 'I saved them' }).click();

  await page.getByLabel('Device name').fill('Sensor 3');
  await page.getByRole('button', { name: 'Create device' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'QUOTA_EXCEEDED' });
  await alert.waitFor();
  expect(await alert.textContent()).toBe('Your plan allows 2 devices (2 used); nothing was created (QUOTA_EXCEEDED)');
  await screenshot(page, 'quota-exceeded');

  await page.goto(`${stack.baseUrl}/account`);
  await page.getByTestId('quota-devices').filter({ hasText: '2 / 2' }).waitFor();
});
