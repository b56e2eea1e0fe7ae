import { parsePin } from '../../../common/pins';
import type { Widget, WidgetConfig } from '../api/types';

/**
 * The console binds a widget on a D or A pin as `pin` = the pin's number plus the pin's name in the
 * free-form config key `pinName` (docs/console.md "Pins"): the widget API took only a V pin number
 * when this was written. The API now also takes and answers a D or A pin by name (`pin: "D0"`,
 * docs/management-api.md), so a widget bound that way (by the API) is read too.
 */
export const PIN_NAME_KEY = 'pinName';

/** The name of the pin a widget shows: `pin` when it is a name, `config.pinName` when it names a D or A pin, else V{pin}. */
export function widgetPin(widget: Pick<Widget, 'pin' | 'config'>): string {
  if (typeof widget.pin === 'string') return parsePin(widget.pin)?.name ?? widget.pin;
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
