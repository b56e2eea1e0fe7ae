import { parsePin } from '../../../common/pins';
import type { Widget, WidgetConfig } from '../api/types';

/**
 * The widget API binds a widget to a V pin by number (SPEC §2.3, docs/management-api.md). Until it
 * takes pin names, a widget on a D or A pin keeps its pin's name in the free-form config key
 * `pinName` (docs/console.md "Pins"); its `pin` is the pin's number.
 */
export const PIN_NAME_KEY = 'pinName';

/** The name of the pin a widget shows: `config.pinName` when it names a D or A pin, else V{pin}. */
export function widgetPin(widget: Pick<Widget, 'pin' | 'config'>): string {
  const named = widget.config[PIN_NAME_KEY];
  const pin = typeof named === 'string' ? parsePin(named) : null;
  return pin && pin.type !== 'V' ? pin.name : `V${widget.pin}`;
}

/** What a widget create sends for pin `name`: its number, and its name in the config for D and A pins. */
export function widgetPinFields(name: string): { pin: number; config: WidgetConfig } {
  const pin = parsePin(name);
  if (!pin) throw new Error(`Not a pin: ${name}`);
  return { pin: pin.index, config: pin.type === 'V' ? {} : { [PIN_NAME_KEY]: pin.name } };
}
