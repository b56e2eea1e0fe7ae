import { z } from 'zod';
import { parsePin } from '../../common/pins';
import { type ConfigKey, DATA_TYPES, EVERY_TYPE_KEYS, KEYS_BY_TYPE } from '../../common/widget-config';
import { WIDGET_TYPES, type JsonValue, type Widget, type WidgetType } from '../../store/widgets';

/** Bound on a widget's config, measured as UTF-8 JSON. */
export const CONFIG_MAX_BYTES = 8192;

const jsonObject = z.record(z.string(), z.json());
const coordinate = z.int().min(0);

/** How each config key is typed; which keys a type knows is common/widget-config.ts. */
const KNOWN: Record<ConfigKey, z.ZodType> = {
  label: z.string().max(100),
  dataType: z.enum(DATA_TYPES),
  suffix: z.string().max(20),
  min: z.number(),
  max: z.number(),
  step: z.number().positive(),
  onValue: z.string().max(1024),
  offValue: z.string().max(1024),
  options: z.array(z.string().min(1).max(50)).min(1).max(20),
  locked: z.boolean(),
};

function configSchema(type: WidgetType) {
  const known = z.object(Object.fromEntries([...EVERY_TYPE_KEYS, ...KEYS_BY_TYPE[type]].map((key) => [key, KNOWN[key].optional()])));
  return z.object({
    config: jsonObject
      .superRefine((config, ctx) => {
        const checked = known.safeParse(config);
        for (const issue of checked.error?.issues ?? []) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      })
      .refine((c) => typeof c.min !== 'number' || typeof c.max !== 'number' || c.min <= c.max, {
        message: 'min must not exceed max',
        path: ['min'],
      })
      .refine((c) => Buffer.byteLength(JSON.stringify(c), 'utf8') <= CONFIG_MAX_BYTES, {
        message: `must be at most ${CONFIG_MAX_BYTES} bytes of JSON`,
      }),
  });
}

type ConfigSchema = ReturnType<typeof configSchema>;
const configSchemas = new Map<WidgetType, ConfigSchema>();

/** Checks a whole config against its widget type (use with parseInput; fields read `body.config.*`). */
export function configOf(type: WidgetType): ConfigSchema {
  let schema = configSchemas.get(type);
  if (!schema) {
    schema = configSchema(type);
    configSchemas.set(type, schema);
  }
  return schema;
}

const layout = z.strictObject({ x: coordinate, y: coordinate, w: coordinate, h: coordinate });

/**
 * The pin a widget binds: a V pin number 0–255 (SPEC §2.3), or a pin name (SPEC §2.7), so a
 * dashboard shows D and A pins too. A V pin is kept as its number (`"V5"` is 5), as SPEC answers
 * it; a D or A pin as its canonical name (`"d0"` is `"D0"`).
 */
const widgetPin = z.union([
  z.int().min(0).max(255),
  z.string().transform((text, ctx) => {
    const pin = /^[VDAvda]/.test(text.trim()) ? parsePin(text) : null;
    if (!pin) {
      ctx.addIssue({ code: 'custom', message: 'a V pin number 0 to 255, or a pin name V0–V255, D0–D99, A0–A15' });
      return z.NEVER;
    }
    return pin.type === 'V' ? pin.index : pin.name;
  }),
]);

/** A widget binds a device's pin or (DESIGN §12) a template's: exactly one of deviceId and templateId. */
export const createWidgetBody = z
  .object({
    type: z.enum(WIDGET_TYPES),
    projectId: z.uuid(),
    deviceId: z.uuid().nullable().default(null),
    templateId: z.uuid().nullable().default(null),
    pin: widgetPin,
    layout,
    config: jsonObject.default({}),
  })
  .refine((b) => (b.deviceId === null) !== (b.templateId === null), { message: 'give deviceId or templateId', path: ['deviceId'] });

export const patchWidgetBody = z
  .strictObject({ layout: layout.optional(), config: jsonObject.optional() })
  .refine((b) => b.layout !== undefined || b.config !== undefined, 'layout or config is required');

/** Merges a config patch key by key; a key patched to null is removed (JSON merge patch, one level). */
export function mergeConfig(current: Widget['config'], patch: Record<string, JsonValue>): Widget['config'] {
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  return Object.fromEntries(merged);
}
