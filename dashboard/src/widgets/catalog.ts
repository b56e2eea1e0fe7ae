import { EVERY_TYPE_KEYS, KEYS_BY_TYPE, type ConfigKey } from '../../../common/widget-config';
import type { WidgetConfig } from '../api/types';

export type WidgetType = keyof typeof KEYS_BY_TYPE;

/** All 29 types, in SPEC order, from the table the gateway validates configs with. */
export const WIDGET_TYPES = Object.keys(KEYS_BY_TYPE) as WidgetType[];

/** Types that write to their pin through `pin:write`. */
export const INPUT_TYPES = new Set<WidgetType>([
  'BUTTON',
  'SWITCH',
  'SLIDER',
  'NUMBER_INPUT',
  'TEXT_INPUT',
  'STEP_CONTROL',
  'SEGMENTED_CONTROL',
  'COLOR_PICKER',
  'JOYSTICK',
  'KEYPAD',
  'TERMINAL',
]);

const SIZES: Partial<Record<WidgetType, { w: number; h: number }>> = {
  GRAPH: { w: 6, h: 4 },
  BAR_CHART: { w: 6, h: 4 },
  MAP: { w: 4, h: 4 },
  LOCATION: { w: 3, h: 4 },
  TERMINAL: { w: 4, h: 4 },
  TABLE: { w: 4, h: 4 },
  KEYPAD: { w: 3, h: 5 },
  JOYSTICK: { w: 3, h: 4 },
  GAUGE: { w: 3, h: 3 },
  ANALOG_GAUGE: { w: 3, h: 4 },
  SEGMENTED_CONTROL: { w: 4, h: 2 },
  IMAGE: { w: 3, h: 3 },
};

export const defaultSize = (type: WidgetType): { w: number; h: number } => SIZES[type] ?? { w: 3, h: 2 };

export function keysOf(type: WidgetType): readonly ConfigKey[] {
  return [...EVERY_TYPE_KEYS, ...KEYS_BY_TYPE[type]];
}

export const isWidgetType = (t: string): t is WidgetType => t in KEYS_BY_TYPE;

export function title(type: string): string {
  return type
    .toLowerCase()
    .split('_')
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join(' ');
}

export function num(config: WidgetConfig, key: string, fallback: number): number {
  const v = config[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function str(config: WidgetConfig, key: string, fallback: string): string {
  const v = config[key];
  return typeof v === 'string' ? v : fallback;
}
