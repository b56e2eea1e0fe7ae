import { z } from 'zod';
import { parsePin } from '../../common/pins';
import { DATA_TYPES } from '../../common/widget-config';
import { heartbeatTimeoutS } from './heartbeat';

/** The most pins one template defines. */
export const MAX_TEMPLATE_PINS = 100;

const name = z.string().trim().min(1).max(100);
const description = z.string().max(1000);

/** A template pin (DESIGN §12): a pin name (SPEC §2.7, written canonically), its label, data type, unit and range. */
const templatePin = z
  .strictObject({
    pin: z.string().transform((value, ctx) => {
      const parsed = parsePin(value);
      if (!parsed) {
        ctx.addIssue({ code: 'custom', message: 'must be a pin name such as V0, D3 or A1' });
        return z.NEVER;
      }
      return parsed.name;
    }),
    name: z.string().trim().min(1).max(100),
    dataType: z.enum(DATA_TYPES),
    unit: z.string().trim().max(20).nullable().default(null),
    min: z.number().nullable().default(null),
    max: z.number().nullable().default(null),
  })
  .refine((p) => p.min === null || p.max === null || p.min <= p.max, { message: 'min must not exceed max', path: ['min'] });

const pins = z
  .array(templatePin)
  .max(MAX_TEMPLATE_PINS)
  .refine((list) => new Set(list.map((p) => p.pin)).size === list.length, 'must not define a pin twice');

export const createTemplateBody = z.object({
  projectId: z.uuid(),
  name,
  description: description.default(''),
  heartbeatTimeoutS: heartbeatTimeoutS.default(null),
  pins: pins.default([]),
});

/** Any create field but projectId. */
export const patchTemplateBody = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    heartbeatTimeoutS: heartbeatTimeoutS.optional(),
    pins: pins.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required');
