/**
 * Issue 38, templates and rule scopes in the console (DESIGN §12), in a real browser on a real
 * stack: a template's dashboard shows the picked device's values, the Templates tab makes and
 * edits templates and explains a refused delete, devices take a template and a heartbeat
 * override, and rules apply to a device, a template, a tag or the whole project.
 */
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, screenshot, signIn } from '../helpers/browser';
import { createProject, registerUser, type TestUser, writeValue } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { watchProblems } from './page-checks';

jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let page: Page;
let user: TestUser;

beforeAll(async () => {
  stack = await startStack();
  user = await registerUser(stack.request, 'Tess Template');
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, stack.baseUrl, user);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200) {
  const res = await stack.request(method, `/api/v1${path}`, { token: user.token, body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body?.data as T;
}

const TEMPERATURE = { pin: 'V0', name: 'Temperature', dataType: 'FLOAT', unit: '°C', min: 0, max: 100 };

async function templateWithDevices(projectName: string, names: string[]) {
  const project = await createProject(stack.request, user, projectName);
  const template = await api<{ id: string }>('POST', '/templates', { projectId: project.id, name: 'Boiler model', pins: [TEMPERATURE] });
  const devices: Array<{ id: string; name: string }> = [];
  for (const name of names) devices.push(await api('POST', '/devices', { name, projectId: project.id, templateId: template.id }));
  return { projectId: project.id, templateId: template.id, devices };
}

const shownValue = () => page.getByTestId('widget-VALUE_DISPLAY').getByTestId('widget-value');

test("a template's dashboard shows device A's value, then device B's once B is picked, and B's next value live", async () => {
  const { projectId, templateId, devices } = await templateWithDevices('Boilers', ['Boiler A', 'Boiler B']);
  const a = devices[0] as { id: string };
  const b = devices[1] as { id: string };
  await writeValue(stack.request, user, a.id, 0, '21.5');
  await writeValue(stack.request, user, b.id, 0, '37.25');
  const { problems } = watchProblems(page);

  await page.goto(`${stack.baseUrl}/templates/${templateId}`);
  await page.getByRole('heading', { name: 'Boiler model' }).waitFor();
  await page.getByTestId('empty-dashboard').waitFor();
  // The widget is designed once, on the template's pin: the pin's name, unit and range fill the form.
  await page.getByRole('button', { name: 'Add widget' }).click();
  const form = page.getByTestId('widget-form');
  await form.getByLabel('Widget type').selectOption('VALUE_DISPLAY');
  await form.getByLabel('Template pin').selectOption('V0');
  expect(await form.getByLabel('Title', { exact: true }).inputValue()).toBe('Temperature');
  expect(await form.getByLabel('Unit', { exact: true }).inputValue()).toBe('°C');
  await form.getByRole('button', { name: 'Add widget' }).click();
  await page.getByTestId('widget-VALUE_DISPLAY').waitFor();
  const stored = (await api<{ widgets: Array<Record<string, unknown>> }>('GET', `/widgets?templateId=${templateId}`)).widgets;
  expect(stored).toEqual([expect.objectContaining({ type: 'VALUE_DISPLAY', templateId, deviceId: null, pin: 0 })]);

  const picker = page.getByLabel('Show device');
  await picker.selectOption({ label: 'Boiler A' });
  await shownValue().and(page.locator('[data-value="21.5"]')).waitFor();
  await page.getByTestId('widget-VALUE_DISPLAY').getByText('Boiler A · V0').waitFor();

  await picker.selectOption({ label: 'Boiler B' });
  await shownValue().and(page.locator('[data-value="37.25"]')).waitFor();
  await page.getByTestId('widget-VALUE_DISPLAY').getByText('Boiler B · V0').waitFor();
  expect(new URL(page.url()).searchParams.get('device')).toBe(b.id);
  await writeValue(stack.request, user, b.id, 0, '38');
  await shownValue().and(page.locator('[data-value="38"]')).waitFor();
  // A's newer value does not show while B is picked.
  await writeValue(stack.request, user, a.id, 0, '5');
  await page.waitForTimeout(500);
  expect(await shownValue().getAttribute('data-value')).toBe('38');
  await screenshot(page, 'template-dashboard');

  // A reload keeps the picked device; the project's own dashboard does not show the template's widget.
  await page.reload();
  await shownValue().and(page.locator('[data-value="38"]')).waitFor();
  await page.goto(`${stack.baseUrl}/projects/${projectId}`);
  await page.getByTestId('empty-dashboard').waitFor();
  expect(problems).toEqual([]);
});

test('the Templates tab makes a template with pins, edits it, and explains why one in use cannot be deleted', async () => {
  const project = await createProject(stack.request, user, 'Greenhouses');
  await page.goto(`${stack.baseUrl}/projects/${project.id}/templates`);
  await page.getByText('No templates yet.').waitFor();
  await page.getByRole('button', { name: 'New template' }).click();
  const form = page.getByTestId('template-form');
  await form.getByLabel('Template name').fill('Climate sensor');
  await form.getByLabel('Template description').fill('Air in the greenhouse');
  await form.getByLabel('Heartbeat timeout').fill('120');
  await form.getByRole('button', { name: 'Add pin' }).click();
  await form.getByLabel('Pin 1 name').fill('Temperature');
  await form.getByLabel('Pin 1 unit').fill('°C');
  await form.getByLabel('Pin 1 minimum').fill('-20');
  await form.getByLabel('Pin 1 maximum').fill('50');
  await form.getByRole('button', { name: 'Add pin' }).click();
  await form.getByLabel('Pin 2', { exact: true }).fill('D0');
  await form.getByLabel('Pin 2 name').fill('Vent');
  await form.getByLabel('Pin 2 data type').selectOption('BOOLEAN');
  // A pin listed twice is caught before anything is sent.
  await form.getByRole('button', { name: 'Add pin' }).click();
  await form.getByLabel('Pin 3', { exact: true }).fill('v0');
  await form.getByLabel('Pin 3 name').fill('Again');
  await form.getByRole('button', { name: 'Save template' }).click();
  await form.getByText('Pin row 3: V0 is listed twice').waitFor();
  await form.getByRole('button', { name: 'Remove pin 3' }).click();
  expect(await form.getByText('is listed twice').count()).toBe(0); // an edit clears the line
  await screenshot(page, 'template-form');
  await form.getByRole('button', { name: 'Save template' }).click();

  const row = page.getByTestId('template-row').filter({ hasText: 'Climate sensor' });
  await row.getByText('V0 Temperature').waitFor();
  await row.getByText('D0 Vent').waitFor();
  await row.getByText('120 s').waitFor();
  await row.getByTestId('template-devices').filter({ hasText: '0 devices' }).waitFor();
  const [template] = (await api<{ templates: Array<Record<string, unknown>> }>('GET', `/templates?projectId=${project.id}`)).templates;
  expect(template).toEqual(
    expect.objectContaining({
      name: 'Climate sensor',
      description: 'Air in the greenhouse',
      heartbeatTimeoutS: 120,
      pins: [
        { pin: 'V0', name: 'Temperature', dataType: 'FLOAT', unit: '°C', min: -20, max: 50 },
        { pin: 'D0', name: 'Vent', dataType: 'BOOLEAN', unit: null, min: null, max: null },
      ],
    }),
  );

  await row.getByRole('button', { name: 'Edit' }).click();
  await form.getByLabel('Heartbeat timeout').fill('');
  await form.getByLabel('Pin 2 name').fill('Vent open');
  await form.getByRole('button', { name: 'Save template' }).click();
  await row.getByText('D0 Vent open').waitFor();
  await row.getByText('default').waitFor();

  // A device made with the template from the devices tab, with its own heartbeat.
  await page.goto(`${stack.baseUrl}/projects/${project.id}/devices`);
  await page.getByLabel('Device name').fill('North house');
  await page.getByLabel('New device template').selectOption({ label: 'Climate sensor' });
  await page.getByLabel('New device heartbeat').fill('300');
  await page.getByRole('button', { name: 'Create device' }).click();
  await page.getByTestId('device-credentials').getByRole('button', { name: 'I saved them' }).click();
  await page.getByTestId('device-template-cell').filter({ hasText: 'Climate sensor' }).waitFor();
  const [made] = (await api<{ devices: Array<Record<string, unknown>> }>('GET', `/devices?projectId=${project.id}`)).devices;
  expect(made).toEqual(expect.objectContaining({ name: 'North house', templateId: template?.id, heartbeatTimeoutS: 300 }));

  await page.goto(`${stack.baseUrl}/projects/${project.id}/templates`);
  await row.getByTestId('template-devices').filter({ hasText: '1 device' }).waitFor();
  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Delete' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: 'Climate sensor is still used by 1 device: give it another template (or none) on the device page first' })
    .waitFor();
  await page.getByRole('alert').filter({ hasText: '(CONFLICT)' }).waitFor();
  await screenshot(page, 'templates');
});

test("a device's page sets its template and heartbeat override, and lists the template's pins by name", async () => {
  const { projectId, templateId } = await templateWithDevices('Kitchens', []);
  const device = await api<{ id: string }>('POST', '/devices', { name: 'Oven', projectId });
  await page.goto(`${stack.baseUrl}/devices/${device.id}`);
  await page.getByTestId('device-template').getByText('none').waitFor();
  await page.getByLabel('Device template').selectOption({ label: 'Boiler model' });
  await page.getByLabel('Heartbeat override').fill('90');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByTestId('device-template').getByText('Boiler model · dashboard').waitFor();
  await page.getByTestId('device-heartbeat').getByText('90 s (its own)').waitFor();
  await page.getByText('V0 Temperature').waitFor();
  expect(await api('GET', `/devices/${device.id}`)).toEqual(expect.objectContaining({ templateId, heartbeatTimeoutS: 90 }));

  // The template link opens the template's dashboard on this device.
  await page.getByTestId('device-template').getByRole('link').click();
  await page.getByRole('heading', { name: 'Boiler model' }).waitFor();
  expect(await page.getByLabel('Show device').inputValue()).toBe(device.id);

  // Back to no template and no override: the template's devices filter no longer lists it.
  await page.goto(`${stack.baseUrl}/devices/${device.id}`);
  await page.getByLabel('Device template').selectOption('');
  await page.getByLabel('Heartbeat override').fill('');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByTestId('device-heartbeat').getByText("the service's default").waitFor();
  await page.goto(`${stack.baseUrl}/projects/${projectId}/devices?templateId=${templateId}`);
  await page.getByText('No device matches these filters.').waitFor();
});

test('a rule applies to a template, a tag or the whole project, and the list says which', async () => {
  const { projectId, templateId } = await templateWithDevices('Plant', ['Pump 1']);
  await page.goto(`${stack.baseUrl}/projects/${projectId}/rules`);

  const newRule = async (scope: string, fill: () => Promise<unknown>, pin: string) => {
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByTestId('rule-form');
    await form.getByLabel('Rule scope').selectOption(scope);
    await fill();
    await form.getByLabel('Rule pin').fill(pin);
    await form.getByLabel('Threshold').fill('80');
    await form.getByRole('button', { name: 'Save rule' }).click();
    await form.waitFor({ state: 'detached' });
  };
  await newRule('template', () => page.getByLabel('Rule template').selectOption({ label: 'Boiler model' }), '1');
  await newRule('tag', () => page.getByLabel('Rule tag').fill('north'), '2');
  await newRule('project', async () => undefined, '3');

  const scopes = page.getByTestId('rule-scope');
  await scopes.and(page.locator('[data-scope="template"]')).getByText('Boiler model').waitFor();
  await scopes.and(page.locator('[data-scope="tag"]')).getByText('north').waitFor();
  await scopes.and(page.locator('[data-scope="project"]')).getByText('every device').waitFor();
  const rules = (await api<{ rules: Array<Record<string, unknown>> }>('GET', `/notifications/rules?projectId=${projectId}`)).rules;
  expect(rules).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ pin: 1, scope: 'template', templateId, deviceId: null, tag: null }),
      expect.objectContaining({ pin: 2, scope: 'tag', tag: 'north', deviceId: null, templateId: null }),
      expect.objectContaining({ pin: 3, scope: 'project', deviceId: null, templateId: null, tag: null }),
    ]),
  );

  // Editing the tag rule down to one device drops its tag.
  await page.getByTestId('rule-row').filter({ hasText: 'north' }).getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Rule scope').selectOption('device');
  await page.getByLabel('Rule device').selectOption({ label: 'Pump 1' });
  await page.getByRole('button', { name: 'Save rule' }).click();
  await scopes.and(page.locator('[data-scope="device"]')).getByText('Pump 1').waitFor();
  await eventually(async () => {
    const now = (await api<{ rules: Array<Record<string, unknown>> }>('GET', `/notifications/rules?projectId=${projectId}`)).rules;
    expect(now).toContainEqual(expect.objectContaining({ pin: 2, scope: 'device', tag: null, templateId: null }));
  });
  await screenshot(page, 'rule-scopes');
});
