import { z } from 'zod';

/**
 * What a device may report about itself on `{root}/{deviceId}/info` (DESIGN §6), and the one limit
 * on each field: the MQTT bridge validates with this schema, the twin keeps a field only within it.
 * 64 characters is what the bridge has always accepted (longer reports are dropped at the edge).
 */
export const INFO_FIELD_MAX_LENGTH = 64;

const field = z.string().max(INFO_FIELD_MAX_LENGTH).optional();

export const deviceInfoSchema = z
  .object({ firmwareVersion: field, ipAddress: field, hardwareType: field })
  .strict();

export type DeviceInfo = z.infer<typeof deviceInfoSchema>;
