import type uPlot from 'uplot';
import { AXIS_FONT } from './time-axis';

const MIN_GAP_PX = 4;
/** Below the plot: uPlot's tick marks (10 px) and a gap. */
const TICK_AND_GAP_PX = 14;

/**
 * Draws the time axis's labels as DOM text under the plot, where each is clamped inside the chart
 * and a label that would touch the one before it is hidden. (uPlot paints labels on the canvas,
 * where nothing could check them; these can be read and measured like any text.)
 */
export function placeTimeTicks(u: uPlot, ticks: ReadonlyArray<{ at: number; text: string }>): void {
  const wrap = u.over.parentElement;
  if (!wrap) return;
  let layer = wrap.querySelector<HTMLDivElement>(':scope > .chart-ticks');
  if (!layer) {
    layer = document.createElement('div');
    layer.className = 'chart-ticks';
    layer.style.font = AXIS_FONT;
    wrap.append(layer);
  }
  layer.replaceChildren();
  const top = u.over.offsetTop + u.over.offsetHeight + TICK_AND_GAP_PX;
  const limit = wrap.clientWidth;
  let lastRight = -Infinity;
  for (const tick of ticks) {
    const label = document.createElement('span');
    label.className = 'chart-tick';
    label.textContent = tick.text;
    label.style.top = `${top}px`;
    layer.append(label);
    const width = label.offsetWidth;
    const centre = u.over.offsetLeft + u.valToPos(tick.at, 'x');
    const left = Math.min(Math.max(centre - width / 2, 0), limit - width);
    if (left < lastRight + MIN_GAP_PX || centre < u.over.offsetLeft - 1 || centre > u.over.offsetLeft + u.over.offsetWidth + 1) {
      label.remove();
      continue;
    }
    label.style.left = `${left}px`;
    lastRight = left + width;
  }
}
