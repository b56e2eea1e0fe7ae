import path from 'node:path';
import type { Page } from 'playwright-core';

export { openBrowser, type Browser } from '../../scripts/chromium';

export const SCREENSHOTS = path.resolve(__dirname, '../../docs/screenshots');

/** Writes docs/screenshots/<name>.png (linked from README). */
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
