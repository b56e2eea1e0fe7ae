import type { Response } from 'express';

/** The external REST list envelope: `{success: true, data, meta}` (SPEC §2.1). */
export function sendList(res: Response, data: unknown[], meta: Record<string, unknown>): void {
  res.status(200).json({ success: true, data, meta });
}

/** The simple interface's envelope: its fields at the top level beside `success` (SPEC §2.1). */
export function sendFields(res: Response, fields: Record<string, unknown>): void {
  res.status(200).json({ success: true, ...fields });
}
