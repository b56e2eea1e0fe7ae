import type { ConfigKey, DATA_TYPES } from '../../../common/widget-config';

/** What the widget form calls each config key, and the line of help under it. */
export const CONFIG_FIELDS: Record<ConfigKey, { label: string; help: string }> = {
  label: { label: 'Title', help: 'Shown in the widget header. Empty: the widget type.' },
  dataType: { label: 'Data type', help: 'What the values mean. They always travel as text; this says how to read them.' },
  suffix: { label: 'Unit', help: 'Shown after the value, e.g. °C or %.' },
  min: { label: 'Minimum', help: 'The lowest value shown or sent (default 0).' },
  max: { label: 'Maximum', help: 'The highest value shown or sent (default 100).' },
  step: { label: 'Step', help: 'How much one step changes the value (default 1).' },
  onValue: { label: 'Value when on', help: 'Sent when switched on or pressed (default 1).' },
  offValue: { label: 'Value when off', help: 'Sent when switched off or released (default 0).' },
  options: { label: 'Choices', help: 'Comma separated, e.g. Off, Auto, On. The chosen one is sent.' },
  locked: {
    label: 'Lock the pin',
    help: 'While locked, apps and APIs cannot write the pin (PIN_LOCKED); the device still reports values.',
  },
};

/** The data types (SPEC §2.8) as the form offers them. */
export const DATA_TYPE_LABELS: Record<(typeof DATA_TYPES)[number], string> = {
  INTEGER: 'Whole number',
  FLOAT: 'Decimal number',
  STRING: 'Text',
  BOOLEAN: 'On / off (0 or 1)',
  JSON: 'JSON',
};
