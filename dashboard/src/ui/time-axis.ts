/**
 * Time-axis labels that never overlap: the tick spacing is the widest label the range can need
 * (measured in the axis font) plus a gap, and the format follows the tick step — seconds only
 * when ticks are under a minute apart, the date once the range passes a day.
 */
export const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const GAP_PX = 16;
const MINUTE = 60;
const DAY = 86_400;

const formats = {
  seconds: new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }),
  minutes: new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
  dateTime: new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
  date: new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' }),
};
type Format = keyof typeof formats;

/** A day whose labels are among the widest: two-digit day and hour, a long month abbreviation. */
const WIDE_SAMPLE = Date.UTC(2025, 8, 28, 22, 58, 58);

let context: CanvasRenderingContext2D | null = null;
const widths = new Map<Format, number>();

/** The width in CSS pixels of the widest label of a format. */
function labelWidth(format: Format): number {
  let width = widths.get(format);
  if (width === undefined) {
    context ??= document.createElement('canvas').getContext('2d');
    if (context) context.font = AXIS_FONT;
    const text = formats[format].format(WIDE_SAMPLE);
    width = context ? context.measureText(text).width : text.length * 7;
    widths.set(format, width);
  }
  return width;
}

/** The format of labels `incr` seconds apart on a range of `range` seconds. */
function formatOf(range: number, incr: number): Format {
  if (incr >= DAY) return 'date';
  if (range > DAY) return 'dateTime';
  return incr < MINUTE ? 'seconds' : 'minutes';
}

/** uPlot `space`: the least distance between ticks, in CSS pixels, for a range drawn across `plotDim`. */
export function tickSpace(range: number, plotDim: number): number {
  if (range > DAY) return labelWidth('dateTime') + GAP_PX;
  const minutes = labelWidth('minutes') + GAP_PX;
  // Ticks under a minute apart (so labelled with seconds) are possible only when the range is short for the width.
  const seconds = plotDim > 0 && (range * minutes) / plotDim < MINUTE;
  return seconds ? labelWidth('seconds') + GAP_PX : minutes;
}

/** uPlot `values`: the label of each tick (seconds since the epoch). */
export function tickLabels(splits: readonly number[], range: number, incr: number): string[] {
  const format = formats[formatOf(range, incr)];
  return splits.map((s) => format.format(s * 1000));
}
