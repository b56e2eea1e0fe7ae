import { parsePin } from '../../../common/pins';
import type { Widget } from '../api/types';

/**
 * A widget's pin as the widget API keeps it (docs/management-api.md): a V pin by its number, a D or
 * A pin by its name (`"D0"`).
 */

/** The name of the pin a widget shows: `pin` when it is a name, else V{pin}. */
export function widgetPin(widget: Pick<Widget, 'pin'>): string {
  if (typeof widget.pin === 'string') return parsePin(widget.pin)?.name ?? widget.pin;
  return `V${widget.pin}`;
}

/** What a widget create sends for pin `name`: a V pin's number, a D or A pin's name. */
export function widgetPinField(name: string): number | string {
  const pin = parsePin(name);
  if (!pin) throw new Error(`Not a pin: ${name}`);
  return pin.type === 'V' ? pin.index : pin.name;
}
