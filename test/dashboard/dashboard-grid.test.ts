/**
 * Issue 37, the dashboard: new widgets fill the first free slot, drag and resize are saved, one
 * column at 390 px, D and A pins live with D0's stored history (table, CSV, delete range), time-axis
 * labels that never overlap, and a dashboard of pins never written that loads without a console error.
 */
import type { MqttClient } from 'mqtt';
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, signIn } from '../helpers/browser';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { type Stack, startStack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { addWidget, importPoints, storedWidgets } from './console-helpers';
import { overlapping, sidewaysOverflow, tickBoxes, watchProblems } from './page-checks';

jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let page: Page;
let user: TestUser;
let device: MqttClient | null = null;

beforeAll(async () => {
  stack = await startStack();
  user = await registerUser(stack.request, 'Gina Grid');
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, stack.baseUrl, user);
});

afterAll(async () => {
  await device?.endAsync();
  await browser?.close();
  await stack?.stop();
});

const item = (id: string) => page.locator('.react-grid-item', { has: page.locator(`[data-widget-id="${id}"]`) });

async function boxesOf(ids: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const id of ids) out[id] = await item(id).boundingBox();
  return out;
}

/** The boxes once two reads in a row agree (the grid animates moves). */
function settledBoxes(ids: string[]): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const first = await boxesOf(ids);
    expect(await boxesOf(ids)).toEqual(first);
    return first;
  });
}

async function drag(from: { x: number; y: number }, dx: number, dy: number): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + dx, from.y + dy, { steps: 12 });
  await page.mouse.up();
}

test('a new widget takes the first free slot; a drag and a resize are saved and a reload shows them', async () => {
  const project = await createProject(stack.request, user, 'Layout');
  await createDevice(stack.request, user, project.id, 'Bench');
  await page.goto(`${stack.baseUrl}/projects/${project.id}`);
  await page.getByTestId('empty-dashboard').waitFor();
  for (const title of ['One', 'Two', 'Three']) await addWidget(page, 'GAUGE', 'V1', { Title: title });
  const [one, two, three] = await storedWidgets(stack.request, user, project.id);
  if (!one || !two || !three) throw new Error('three widgets expected');
  // Across the top row, not down the left column.
  expect([one.layout, two.layout, three.layout]).toEqual([
    { x: 0, y: 0, w: 3, h: 3 },
    { x: 3, y: 0, w: 3, h: 3 },
    { x: 6, y: 0, w: 3, h: 3 },
  ]);

  const first = await item(one.id).boundingBox();
  const second = await item(two.id).boundingBox();
  if (!first || !second) throw new Error('widgets not shown');
  const column = (second.x - first.x) / 3;
  const handle = await page.locator(`[data-widget-id="${three.id}"] .widget-handle strong`).boundingBox();
  if (!handle) throw new Error('no handle');
  await drag({ x: handle.x + 5, y: handle.y + 5 }, 3 * column, 0);
  await eventually(async () =>
    expect((await storedWidgets(stack.request, user, project.id))[2]?.layout).toEqual({ x: 9, y: 0, w: 3, h: 3 }),
  );

  const resize = await item(one.id).locator('.react-resizable-handle').boundingBox();
  if (!resize) throw new Error('no resize handle');
  await drag({ x: resize.x + resize.width / 2, y: resize.y + resize.height / 2 }, 0, 70);
  await eventually(async () =>
    expect((await storedWidgets(stack.request, user, project.id))[0]?.layout).toEqual({ x: 0, y: 0, w: 3, h: 4 }),
  );

  // The gap the drag left in the top row is the first free slot now.
  await addWidget(page, 'GAUGE', 'V2', { Title: 'Four' });
  const widgets = await storedWidgets(stack.request, user, project.id);
  expect(widgets[3]?.layout).toEqual({ x: 6, y: 0, w: 3, h: 3 });

  const ids = widgets.map((w) => w.id);
  const before = await settledBoxes(ids);
  await page.reload();
  await eventually(async () => expect(await boxesOf(ids)).toEqual(before));
});

test('at 390 px the dashboard is one column of full-width widgets and nothing overflows sideways', async () => {
  const project = await createProject(stack.request, user, 'Narrow');
  const bench = await createDevice(stack.request, user, project.id, 'Bench');
  for (const [i, type] of ['GAUGE', 'VALUE_DISPLAY', 'GRAPH', 'SWITCH'].entries()) {
    const layout = { x: (i % 4) * 3, y: 0, w: 3, h: 3 };
    const res = await stack.request('POST', '/api/v1/widgets', {
      token: user.token,
      body: { type, projectId: project.id, deviceId: bench.id, pin: i, layout, config: {} },
    });
    expect(res.status).toBe(201);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(`${stack.baseUrl}/projects/${project.id}`);
    await page.locator('.grid-host[data-columns="1"]').waitFor();
    await page.getByTestId('widget-SWITCH').waitFor();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    expect((await page.locator('.topbar').boundingBox())?.width).toBe(390);
    for (const widget of await page.locator('.widget').all()) expect((await widget.boundingBox())?.width).toBeGreaterThan(300);
    const tops = await Promise.all((await page.locator('.widget').all()).map(async (w) => (await w.boundingBox())?.y ?? 0));
    expect(new Set(tops).size).toBe(4); // one under the other
  } finally {
    await page.setViewportSize({ width: 1280, height: 860 });
  }
});

test('D0 and A0 widgets show what the device sends; the device page lists those pins, and D0 has stored history', async () => {
  const project = await createProject(stack.request, user, 'Pins');
  const made = await createDevice(stack.request, user, project.id, 'Greenhouse door');
  await page.goto(`${stack.baseUrl}/projects/${project.id}`);
  await addWidget(page, 'VALUE_DISPLAY', 'D0', { Title: 'Door' });
  await addWidget(page, 'GAUGE', 'A0', { Title: 'Light' });
  await page.getByTestId('widget-VALUE_DISPLAY').getByText('Greenhouse door · D0').waitFor();
  await page.getByTestId('widget-GAUGE').getByText('Greenhouse door · A0').waitFor();
  // Bound by name, as the widget API keeps a D or A pin, so their titles label D0 and A0 in pin reads.
  const stored = await stack.request('GET', `/api/v1/widgets?projectId=${project.id}`, { token: user.token });
  expect(stored.body.data.widgets.map((w: { pin: unknown; config: unknown }) => [w.pin, w.config])).toEqual(
    expect.arrayContaining([
      ['D0', expect.objectContaining({ label: 'Door' })],
      ['A0', expect.objectContaining({ label: 'Light' })],
    ]),
  );

  // A D pin goes to 99 (SPEC §2.7): the form does not take D100.
  await page.getByRole('button', { name: 'Add widget' }).click();
  const form = page.getByTestId('widget-form');
  await form.getByLabel('Pin type').selectOption('D');
  await form.getByLabel('Widget pin', { exact: true }).fill('100');
  await form.locator('input[aria-label="Widget pin"]:invalid').waitFor();
  await form.getByText('D0–D99 · GPIO state, 0 or 1 · up to 16 bytes').waitFor();
  await form.getByRole('button', { name: 'Cancel' }).click();

  const root = stack.config.MQTT_TOPIC_ROOT;
  device = await connectAsDevice(stack.config.MQTT_URL, made);
  await device.publishAsync(`${root}/${made.id}/pin/D0`, '1', { qos: 1 });
  await device.publishAsync(`${root}/${made.id}/pin/A0`, '512', { qos: 1 });
  await page.locator('[data-testid="widget-VALUE_DISPLAY"] [data-value="1"]').waitFor();
  await page.locator('[data-testid="widget-GAUGE"] [data-value="512"]').waitFor();

  // Opened afresh, the page reads both from the device's latest state.
  await page.reload();
  await page.locator('[data-testid="widget-GAUGE"] [data-value="512"]').waitFor();
  await page.goto(`${stack.baseUrl}/devices/${made.id}`);
  await page.getByTestId('pin-value-D0').filter({ hasText: '1' }).waitFor();
  await page.getByTestId('pin-value-A0').filter({ hasText: '512' }).waitFor();

  // D0's stored history, read by name like a V pin's: a value imported 20 minutes back shows in
  // the chart's count and the table, goes out in the CSV, and the range shown can be deleted.
  const past = new Date(Date.now() - 20 * 60_000).toISOString();
  const imported = await stack.request('POST', `/api/v1/data/${made.id}/D0`, { token: user.token, body: { value: '0', timestamp: past } });
  expect([imported.status, imported.body.data.pin]).toEqual([201, 'D0']);
  await page.getByRole('row', { name: /^D0/ }).getByRole('link', { name: 'History' }).click();
  await page.getByRole('heading', { name: 'History of D0' }).waitFor();
  await page.getByRole('heading', { name: '2 points' }).waitFor();
  const table = page.getByTestId('history-table');
  await table
    .getByRole('row')
    .filter({ has: page.locator(`time[datetime="${past}"]`) })
    .getByRole('cell', { name: '0', exact: true })
    .waitFor();
  expect(await table.locator('tbody tr').count()).toBe(2);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const stream = await (await download).createReadStream();
  let csv = '';
  for await (const chunk of stream) csv += String(chunk);
  expect(csv.trim().split('\n')).toEqual(['timestamp,value', `${past},0`, expect.stringMatching(/,1$/)]);
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete range' }).click();
  await page.getByTestId('history-deleted').filter({ hasText: 'Deleted 2 points stored on D0' }).waitFor();
  await page.getByRole('heading', { name: '0 points' }).waitFor();
  const left = await stack.request('GET', `/api/v1/data/${made.id}/D0?from=${encodeURIComponent(past)}`, { token: user.token });
  expect(left.body.data.points).toEqual([]);
});

test('time-axis labels never overlap: a dashboard chart, and history wide and narrow', async () => {
  const project = await createProject(stack.request, user, 'Charts');
  const bench = await createDevice(stack.request, user, project.id, 'Bench');
  const now = Date.now();
  await importPoints(
    stack.request,
    user,
    bench.id,
    2,
    Array.from({ length: 120 }, (_, i) => ({ at: new Date(now - (120 - i) * 29_000), value: String(20 + (i % 7)) })),
  );
  await importPoints(
    stack.request,
    user,
    bench.id,
    3,
    Array.from({ length: 72 }, (_, i) => ({ at: new Date(now - (72 - i) * 3_600_000), value: String(i % 11) })),
  );
  const res = await stack.request('POST', '/api/v1/widgets', {
    token: user.token,
    body: { type: 'GRAPH', projectId: project.id, deviceId: bench.id, pin: 2, layout: { x: 0, y: 0, w: 4, h: 4 }, config: {} },
  });
  expect(res.status).toBe(201);

  const check = async (min: number) => {
    const chart = page.getByTestId('chart').first();
    await chart
      .locator('.chart-tick')
      .nth(min - 1)
      .waitFor();
    const boxes = await tickBoxes(chart);
    expect(overlapping(boxes)).toEqual([]);
    const width = page.viewportSize()?.width ?? 0;
    for (const b of boxes) expect([b.text, b.x >= 0 && b.x + b.width <= width]).toEqual([b.text, true]);
    return boxes.map((b) => b.text);
  };

  await page.goto(`${stack.baseUrl}/projects/${project.id}`);
  await page.locator('[data-testid="widget-GRAPH"] [data-series="120"]').waitFor();
  await check(2);

  await page.goto(`${stack.baseUrl}/devices/${bench.id}/pins/V2`);
  await page.getByRole('heading', { name: '120 points' }).waitFor();
  expect((await check(4)).every((t) => /^\d\d:\d\d$/.test(t))).toBe(true);

  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.reload();
    await page.getByRole('heading', { name: '120 points' }).waitFor();
    await check(2);
    await page.goto(`${stack.baseUrl}/devices/${bench.id}/pins/V3`);
    await page.getByLabel('Time range').selectOption({ label: 'Last week' });
    await page.getByRole('heading', { name: '72 points' }).waitFor();
    await check(2);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  } finally {
    await page.setViewportSize({ width: 1280, height: 860 });
  }
});

test('a dashboard of pins never written loads without a console error or a failed request', async () => {
  const project = await createProject(stack.request, user, 'Quiet');
  const bench = await createDevice(stack.request, user, project.id, 'Silent');
  const widgets: Array<[string, number | string, Record<string, string>]> = [
    ['VALUE_DISPLAY', 5, {}],
    ['LED', 'D7', {}],
    ['GAUGE', 'A3', {}],
    ['GRAPH', 6, {}],
    ['TERMINAL', 'D8', {}],
  ];
  for (const [i, [type, pin, config]] of widgets.entries()) {
    const layout = { x: (i % 4) * 3, y: Math.floor(i / 4) * 3, w: 3, h: 3 };
    const res = await stack.request('POST', '/api/v1/widgets', {
      token: user.token,
      body: { type, projectId: project.id, deviceId: bench.id, pin, layout, config },
    });
    expect(res.status).toBe(201);
  }
  await page.goto('about:blank');
  const { problems } = watchProblems(page);
  await page.goto(`${stack.baseUrl}/projects/${project.id}`);
  await page.locator('[data-testid="dashboard"][data-live="synced"]').waitFor();
  await page.getByTestId('widget-LED').getByText('Silent · D7').waitFor();
  await page.getByTestId('widget-TERMINAL').getByText('Silent · D8').waitFor();
  await page.goto(`${stack.baseUrl}/devices/${bench.id}`);
  await page.getByTestId('pin-value-A3').filter({ hasText: 'no value' }).waitFor();
  await page.goto(`${stack.baseUrl}/devices/${bench.id}/pins/V5`);
  await page.getByText('No numeric values stored on V5 in this range.').waitFor();
  await page.goto(`${stack.baseUrl}/projects/${project.id}`);
  await page.locator('[data-testid="dashboard"][data-live="synced"]').waitFor();
  expect(problems).toEqual([]);
});
