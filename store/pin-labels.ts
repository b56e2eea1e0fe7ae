import { z } from 'zod';
import { parsePin } from '../common/pins';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';

/** The part of a stored widget that labels a pin (store/widgets.ts: a V pin's number or a D or A pin's name). */
const labelledWidget = z.object({
  pin: z.union([z.number().int(), z.string()]),
  config: z.object({ label: z.string() }),
});

/**
 * Labels of a device's pins: pin name → `config.label` of a widget bound to that pin. A pin with
 * no labelled widget has no entry. When several widgets label one pin, the one with the lowest id wins.
 */
export async function pinLabels(redis: Redis, deviceId: string): Promise<Map<string, string>> {
  const ids = (await redis.smembers(keys.deviceWidgets(deviceId))).sort();
  const labels = new Map<string, string>();
  if (ids.length === 0) return labels;
  const jsons = await Promise.all(ids.map((id) => redis.get(keys.widget(id))));
  for (const json of jsons) {
    if (!json) continue;
    const widget = labelledWidget.safeParse(JSON.parse(json));
    const pin = widget.success ? parsePin(widget.data.pin) : null;
    if (widget.success && pin && !labels.has(pin.name)) labels.set(pin.name, widget.data.config.label);
  }
  return labels;
}
