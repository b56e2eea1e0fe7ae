import { z } from 'zod';

/** A device's fields as every path that makes or changes one checks them (POST /devices, PATCH, provisioning, bulk import). */
export const deviceName = z.string().trim().min(1).max(100);
export const deviceDescription = z.string().max(1000);
export const deviceTags = z.array(z.string().trim().min(1).max(50)).max(20);
/** Printable ASCII, spaces inside allowed: a serial number, a MAC address (DESIGN §14). */
export const deviceSerial = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII');
