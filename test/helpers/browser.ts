import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';

export { openBrowser, type Browser } from '../../scripts/chromium';

/**
 * Where the console's screenshots go: docs/screenshots (linked from the README) when the run is
 * `npm run screenshots` (DDS_SCREENSHOTS=1), so an ordinary test run leaves the tracked images as
 * they are; a throw-away folder otherwise (the screens are still rendered and checked).
 */
export const SCREENSHOTS =
  process.env.DDS_SCREENSHOTS === '1' ? path.resolve(__dirname, '../../docs/screenshots') : path.join(os.tmpdir(), 'dds-screenshots');
mkdirSync(SCREENSHOTS, { recursive: true });

/** Writes <name>.png into SCREENSHOTS. */
export function screenshot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

/** Signs `user` in through the console's own form and waits for the projects page. */
export async function signIn(page: Page, baseUrl: string, user: { email: string }): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
}
