import type { Page } from 'playwright-core';
import type { Request } from '../helpers/http';
import type { TestUser } from '../helpers/fixtures';

/** Adds a widget through the console's form: its type, its pin by name (V1, D0, A0) and fields by their labels. */
export async function addWidget(page: Page, type: string, pin: string, fields: Record<string, string> = {}): Promise<void> {
  const before = await page.locator(`[data-testid="widget-${type}"]`).count();
  await page.getByRole('button', { name: 'Add widget' }).click();
  const form = page.getByTestId('widget-form');
  await form.getByLabel('Widget type').selectOption(type);
  await form.getByLabel('Pin type').selectOption(pin.charAt(0));
  await form.getByLabel('Widget pin', { exact: true }).fill(pin.slice(1));
  for (const [label, value] of Object.entries(fields)) await form.getByLabel(label, { exact: true }).fill(value);
  await form.getByRole('button', { name: 'Add widget' }).click();
  await page.locator(`[data-testid="widget-${type}"]`).nth(before).waitFor();
}

export interface StoredWidget {
  id: string;
  type: string;
  pin: number;
  layout: { x: number; y: number; w: number; h: number };
  config: Record<string, unknown>;
}

/** A project's widgets as the API stores them, oldest first. */
export async function storedWidgets(request: Request, user: TestUser, projectId: string): Promise<StoredWidget[]> {
  const res = await request('GET', `/api/v1/widgets?projectId=${projectId}`, { token: user.token });
  if (res.status !== 200) throw new Error(`widgets: ${res.status} ${res.text}`);
  return res.body.data.widgets;
}

/** Stores `points` on a V pin of a device in one bulk import (timestamped readings). */
export async function importPoints(
  request: Request,
  user: TestUser,
  deviceId: string,
  pin: number,
  points: Array<{ at: Date; value: string }>,
): Promise<void> {
  const readings = points.map((p) => ({ pin, value: p.value, timestamp: p.at.toISOString() }));
  const res = await request('POST', `/api/v1/data/${deviceId}/bulk`, { token: user.token, body: { readings } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`bulk import: ${res.status} ${res.text}`);
}
