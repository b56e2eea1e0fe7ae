import { z } from 'zod';
import { DEFAULT_JOB_TTL_S, JOB_DEVICE_STATES } from '../../common/jobs';
import { parsePin, valueFits } from '../../common/pins';
import { listQuery as deviceListQuery } from '../routes/devices';
import { pinValueText } from './pin-value';

/** The device list's filter fields (DESIGN §13), times kept as written (ISO 8601 with offset). */
const jobFilter = deviceListQuery
  .pick({ status: true, q: true, tag: true, templateId: true, firmwareVersion: true, firmwareVersionLt: true })
  .extend({
    lastSeenBefore: z.iso.datetime({ offset: true }).optional(),
    lastSeenAfter: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

const target = z
  .strictObject({
    deviceIds: z.array(z.uuid()).min(1).max(10_000).optional(),
    tag: z.string().min(1).max(50).optional(),
    templateId: z.uuid().optional(),
    filter: jobFilter.optional(),
  })
  .refine((t) => [t.deviceIds, t.tag, t.templateId, t.filter].filter((v) => v !== undefined).length === 1, {
    message: 'exactly one of deviceIds, tag, templateId, filter',
  });

const commandAction = z
  .strictObject({
    type: z.literal('command'),
    pin: z.union([z.number().int(), z.string()]).transform((pin, ctx) => {
      const parsed = parsePin(pin);
      if (!parsed) {
        ctx.addIssue({ code: 'custom', message: 'a number 0 to 255 (a V pin), or a pin name V0–V255, D0–D99, A0–A15' });
        return z.NEVER;
      }
      return parsed.name;
    }),
    value: pinValueText,
  })
  .refine((a) => valueFits(parsePin(a.pin) ?? { type: 'V', index: 0, name: 'V0' }, a.value), {
    message: 'too large for the pin type',
    path: ['value'],
  });

const otaAction = z.strictObject({ type: z.literal('ota'), firmwareId: z.uuid() });

/** POST /api/v1/jobs (DESIGN §13). */
export const createJobBody = z.strictObject({
  projectId: z.uuid(),
  target,
  action: z.discriminatedUnion('type', [commandAction, otaAction]),
  rollout: z
    .strictObject({
      maxPerMinute: z.number().int().min(1).max(1_000_000).optional(),
      abortFailureRatio: z.number().min(0).max(1).optional(),
      minDevices: z.number().int().min(1).max(1_000_000).optional(),
    })
    .default({}),
  /** As a command's ttlSeconds (docs/commands.md): 1 s to 30 days. */
  ttlSeconds: z.number().int().min(1).max(2_592_000).default(DEFAULT_JOB_TTL_S),
  startAt: z.iso.datetime({ offset: true }).optional(),
});

export const jobListQuery = z.strictObject({ projectId: z.uuid() });

export const jobDevicesQuery = z
  .strictObject({
    state: z.enum(JOB_DEVICE_STATES).optional(),
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .refine((q) => q.page * q.limit <= 100_000, { message: 'page × limit is at most 100,000', path: ['page'] });
