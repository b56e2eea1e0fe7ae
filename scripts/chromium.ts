import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (scripts/setup.sh installs it); Playwright never downloads a browser here. */
export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  page: Page;
  context: BrowserContext;
  close(): Promise<void>;
}

/** A real Chromium with a fresh profile directory of its own, one page open (used by tests and bench/dashboard.ts). */
export async function openBrowser(viewport = { width: 1280, height: 860 }): Promise<Browser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'dds-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
