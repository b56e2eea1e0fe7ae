import type { WidgetType } from '../store/widgets';

/**
 * The widget config keys each type knows (docs/management-api.md, Widgets): plain data shared by
 * the gateway's schema (gateway/schemas/widget.ts) and the web console's widget forms.
 * No runtime imports, so the console bundles it without the server.
 */
export const CONFIG_KEYS = ['label', 'dataType', 'suffix', 'min', 'max', 'step', 'onValue', 'offValue', 'options', 'locked'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export { DATA_TYPES, type DataType } from './contracts';

/** Keys every type knows. */
export const EVERY_TYPE_KEYS: readonly ConfigKey[] = ['label', 'dataType'];
const RANGE: readonly ConfigKey[] = ['min', 'max', 'suffix'];
const INPUT_RANGE: readonly ConfigKey[] = [...RANGE, 'step'];
const ON_OFF: readonly ConfigKey[] = ['onValue', 'offValue'];

/** The keys a type knows besides EVERY_TYPE_KEYS; its keys are every widget type, in SPEC order. */
export const KEYS_BY_TYPE: Record<WidgetType, readonly ConfigKey[]> = {
  BUTTON: ON_OFF,
  SWITCH: ON_OFF,
  SLIDER: INPUT_RANGE,
  GAUGE: RANGE,
  ANALOG_GAUGE: RANGE,
  GRAPH: RANGE,
  VALUE_DISPLAY: ['suffix'],
  LCD: [],
  TERMINAL: [],
  LED: [],
  JOYSTICK: ['min', 'max'],
  MAP: [],
  PROGRESS_BAR: RANGE,
  COLOR_PICKER: [],
  STEP_CONTROL: INPUT_RANGE,
  BRIDGE: [],
  IMAGE: [],
  TABLE: [],
  BAR_CHART: RANGE,
  ALERT: [],
  NUMBER_INPUT: INPUT_RANGE,
  TIMER: [],
  SEGMENTED_CONTROL: ['options'],
  SIGNAL_STRENGTH: ['min', 'max'],
  TEXT_INPUT: [],
  SPARKLINE: RANGE,
  ICON_STATUS: [],
  KEYPAD: ['locked'],
  LOCATION: [],
};
