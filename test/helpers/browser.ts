import path from 'node:path';
import type { Page } from 'playwright-core';

export { openBrowser, type Browser } from '../../scripts/chromium';

export const SCREENSHOTS = path.resolve(__dirname, '../../docs/screenshots');

/** Writes docs/screenshots/<name>.png (linked from README). */
export function screenshot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}
