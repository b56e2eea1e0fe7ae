/**
 * Dashboard bench (issue 15): a project dashboard of BENCH_WIDGETS (default 50) VALUE_DISPLAY /
 * GAUGE / SPARKLINE widgets, each pin updated BENCH_RATE (default 10) times a second over MQTT,
 * through the real service (its own process) into Debian's Chromium. Prints the updates the page
 * shows per second beside the rate offered, the main thread's busy share (Chrome's TaskDuration)
 * beside the same page idle in the same run, and the gzipped size of the initial JS.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { connectAsync } from 'mqtt';
import type { Page } from 'playwright-core';
import { openBrowser } from '../scripts/chromium';
import { createAccount } from './support/api';
import { startBackends } from './support/backends';
import { runBench } from './support/cleanup';
import { envInt } from './support/env';
import { machineLine } from './support/machine';
import { REPO_ROOT } from './support/paths';
import { startService } from './support/service-process';

const TYPES = ['VALUE_DISPLAY', 'GAUGE', 'SPARKLINE'];

/** Counts value changes the page renders (the widget's data-value attribute) from now on. */
async function countRendered(page: Page): Promise<void> {
  // A string: this file is compiled without the DOM library; the expression runs in the page.
  await page.evaluate(`(() => {
    window.__shown = 0;
    new MutationObserver((records) => { window.__shown += records.length; })
      .observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-value'] });
  })()`);
}

const shown = (page: Page): Promise<number> => page.evaluate('window.__shown');

/** Main-thread busy share over `seconds`: Chrome's TaskDuration delta over wall time. */
async function busyShare(page: Page, seconds: number): Promise<{ share: number; shown: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const task = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
  const t0 = await task();
  const s0 = await shown(page);
  const started = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const share = (await task()) - t0;
  const wall = (Date.now() - started) / 1000;
  return { share: share / wall, shown: ((await shown(page)) - s0) / wall };
}

function initialJsGzip(): { raw: number; gz: number } {
  const dir = join(REPO_ROOT, 'dist', 'dashboard');
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/src="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  const preloads = [...html.matchAll(/href="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  const files = [...new Set([...scripts, ...preloads])];
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const body = readFileSync(join(dir, f));
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  if (!files.length) throw new Error(`no script in ${dir}/index.html (assets: ${readdirSync(join(dir, 'assets')).join(', ')})`);
  return { raw, gz };
}

void runBench('dashboard', async (cleanup) => {
  const widgets = envInt('BENCH_WIDGETS', 50);
  const rate = envInt('BENCH_RATE', 10);
  const seconds = envInt('BENCH_SECONDS', 10);
  const backends = await startBackends(cleanup);
  const service = await startService(backends, cleanup, { DEFAULT_PLAN: 'pro', RATE_LIMIT_MULTIPLIER: '1000000' });
  const account = await createAccount(service.baseUrl);
  const device = await account.call<{ id: string }>('POST', '/api/v1/devices', { name: 'bench', projectId: account.projectId });
  for (let i = 0; i < widgets; i++) {
    await account.call('POST', '/api/v1/widgets', {
      type: TYPES[i % TYPES.length],
      projectId: account.projectId,
      deviceId: device.id,
      pin: i,
      layout: { x: (i % 6) * 2, y: Math.floor(i / 6) * 2, w: 2, h: 2 },
      config: { min: 0, max: 1000 },
    });
  }

  const browser = await openBrowser({ width: 1600, height: 1200 });
  cleanup.add('chromium', () => browser.close());
  const { page } = browser;
  await page.goto(`${service.baseUrl}/signin`);
  const session = JSON.stringify({ accessToken: account.token, user: { email: 'bench' } });
  await page.evaluate(`localStorage.setItem('dds.session', ${JSON.stringify(session)})`);
  await page.goto(`${service.baseUrl}/projects/${account.projectId}`);
  await page
    .locator('[data-testid="widget-value"]')
    .nth(widgets - 1)
    .waitFor({ timeout: 60_000 });
  await countRendered(page);

  const idle = await busyShare(page, Math.min(seconds, 5));

  const mqtt = await connectAsync(backends.mqttUrl, {
    username: backends.mqttUsername,
    password: backends.mqttPassword,
    reconnectPeriod: 0,
  });
  cleanup.add('publisher', () => mqtt.endAsync());
  let sent = 0;
  let n = 0;
  const tick = setInterval(() => {
    n++;
    for (let i = 0; i < widgets; i++) {
      void mqtt.publishAsync(`dds/${device.id}/pin/V${i}`, String((n * 7 + i) % 1000));
      sent++;
    }
  }, 1000 / rate);
  cleanup.add('publisher timer', async () => clearInterval(tick));
  await new Promise((r) => setTimeout(r, 2000));
  const sent0 = sent;
  const t0 = Date.now();
  const busy = await busyShare(page, seconds);
  const offered = (sent - sent0) / ((Date.now() - t0) / 1000);
  clearInterval(tick);
  const js = initialJsGzip();

  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  process.stdout.write(
    [
      machineLine(),
      `dashboard: ${widgets} widgets (${TYPES.join(', ')}), each pin updated ${rate}/s over MQTT, ${seconds} s measured`,
      `  updates offered (MQTT publishes/s)        ${offered.toFixed(0)}`,
      `  updates shown by the page (per s)         ${busy.shown.toFixed(0)}  (${pct(busy.shown / offered)} of offered)`,
      `  main-thread busy share, updating          ${pct(busy.share)}`,
      `  main-thread busy share, same page idle    ${pct(idle.share)}  (baseline)`,
      `  initial JS: ${(js.raw / 1024).toFixed(0)} KiB, gzipped ${(js.gz / 1024).toFixed(1)} KiB`,
      '',
    ].join('\n'),
  );
});
