import type { Locator, Page } from 'playwright-core';

/** What the browser reported as going wrong while the page was open: console errors, uncaught errors, failed API answers. */
export function watchProblems(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} ${res.request().method()} ${new URL(res.url()).pathname}`);
  });
  return { problems };
}

/** How many CSS pixels the document is wider than the window (0 when nothing overflows sideways). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The boxes of the time-axis labels a chart shows, left to right. */
export async function tickBoxes(chart: Locator): Promise<Array<Box & { text: string }>> {
  const labels = chart.locator('.chart-tick');
  const out: Array<Box & { text: string }> = [];
  for (const label of await labels.all()) {
    const box = await label.boundingBox();
    if (box) out.push({ ...box, text: (await label.textContent()) ?? '' });
  }
  return out.sort((a, b) => a.x - b.x);
}

/** Pairs of boxes that overlap, as "text1 / text2". */
export function overlapping(boxes: ReadonlyArray<Box & { text: string }>): string[] {
  const out: string[] = [];
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) out.push(`${a.text} / ${b.text}`);
    }
  }
  return out;
}
