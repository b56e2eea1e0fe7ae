/**
 * Bulk import in the console (docs/provisioning.md "Bulk import"), in a real browser on a real
 * stack: a CSV file read in the browser becomes one import request, the credentials CSV is offered
 * as a download once, the devices list shows the serials, a refused row is named by its line with
 * nothing imported, and a template's screen shows its provisioning key once, a key that provisions.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, screenshot, signIn } from '../helpers/browser';
import { connectAsDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';
import { watchProblems } from './page-checks';

jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let page: Page;
let user: TestUser;
let projectId: string;
let templateId: string;

beforeAll(async () => {
  stack = await startStack();
  user = await registerUser(stack.request, 'Ivo Import');
  projectId = (await createProject(stack.request, user, 'Water meters')).id;
  const template = await stack.request('POST', '/api/v1/templates', { token: user.token, body: { projectId, name: 'Meter model' } });
  templateId = template.body.data.id;
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, stack.baseUrl, user);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const csvFile = (text: string) => ({ name: 'meters.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });

test('a CSV file is imported with a template; the credentials CSV downloads once; the list shows the serials', async () => {
  const { problems } = watchProblems(page);
  await page.goto(`${stack.baseUrl}/projects/${projectId}/import`);
  await page
    .getByLabel('CSV file')
    .setInputFiles(csvFile('name,serial,tags\r\n"Meter, cellar",WM-001,water;cellar\r\nMeter roof,WM-002,water\r\nMeter yard,WM-003,\r\n'));
  await page.getByTestId('import-preview').getByText('3 devices read from meters.csv').waitFor();
  await page.getByLabel('Import template').selectOption({ label: 'Meter model' });
  await page.getByRole('button', { name: 'Import 3 devices' }).click();
  const offered = page.getByTestId('import-credentials');
  await offered.getByText('3 devices imported').waitFor();
  await screenshot(page, 'import-credentials');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    offered.getByRole('button', { name: 'Download credentials CSV' }).click(),
  ]);
  const text = await readFile(await download.path(), 'utf8');
  const [header, ...lines] = text.trimEnd().split('\n');
  expect(header).toBe('id,name,serial,token');
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^[0-9a-f-]{36},"Meter, cellar",WM-001,dt_[A-Za-z0-9_-]{32}$/);
  // A downloaded token logs in to the broker.
  const [id, , , token] = (lines[1] as string).split(',');
  const client = await connectAsDevice(stack.config.MQTT_URL, { id: id as string, token: token as string });
  await client.endAsync(true);
  await offered.getByRole('button', { name: 'I saved them' }).click();
  await offered.waitFor({ state: 'detached' });

  await page.goto(`${stack.baseUrl}/projects/${projectId}/devices`);
  const serials = page.getByTestId('device-serial-cell');
  await serials.nth(2).waitFor();
  // Rows made in the same millisecond are listed by id, not by line.
  expect((await serials.allTextContents()).sort()).toEqual(['WM-001', 'WM-002', 'WM-003']);
  expect(problems).toEqual([]);
});

test('a refused row is named by its line and nothing is imported', async () => {
  await page.goto(`${stack.baseUrl}/projects/${projectId}/import`);
  await page.getByLabel('CSV file').setInputFiles(csvFile('name,serial\nA,X-1\nB,X-2\nC,X-1\n'));
  await page.getByRole('button', { name: 'Import 3 devices' }).click();
  await page.getByRole('alert').getByText('Nothing was imported. line 4 (serial): repeats the serial of row 0').waitFor();
  const listed = await stack.request('GET', `/api/v1/devices?projectId=${projectId}&limit=1`, { token: user.token });
  expect(listed.body.data.total).toBe(3);
  // A column the import does not know is refused in the browser, before any request.
  await page.getByLabel('CSV file').setInputFiles(csvFile('name,serialnumber\nA,1\n'));
  await page.getByRole('alert').getByText('Unknown column(s): serialnumber').waitFor();
});

test("a template's screen shows its new provisioning key once, and the key provisions a device", async () => {
  await page.goto(`${stack.baseUrl}/templates/${templateId}`);
  await page.getByTestId('provisioning-state').getByText('Disabled').waitFor();
  await page.getByRole('button', { name: 'Enable provisioning' }).click();
  const key = await page.getByTestId('secret-Provisioning key').textContent();
  expect(key).toMatch(/^pk_/);
  await page.getByTestId('provisioning-state').getByText('Enabled').waitFor();
  const provisioned = await stack.request('POST', '/external/api/provision', { body: { key, serial: 'WM-100' } });
  expect(provisioned.status).toBe(201);
  // Left and opened again, the key is not shown: only a new one can be made.
  await page.reload();
  await page.getByRole('button', { name: 'Make a new key' }).waitFor();
  expect(await page.getByTestId('provisioning-key').count()).toBe(0);
});
