import type { Response } from 'express';
import type { AppError } from '../../common/errors';

/** The success envelope of the management interface: `{success: true, data}`. */
export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json({ success: true, data });
}

export function sendNoContent(res: Response): void {
  res.status(204).end();
}

/** The external REST list envelope: `{success: true, data, meta}` (SPEC §2.1). */
export function sendList(res: Response, data: unknown[], meta: Record<string, unknown>): void {
  res.status(200).json({ success: true, data, meta });
}

/** The simple interface's envelope: its fields at the top level beside `success` (SPEC §2.1). */
export function sendFields(res: Response, fields: Record<string, unknown>): void {
  res.status(200).json({ success: true, ...fields });
}

/** The failure envelope shared by every interface: `{success: false, error: {code, message, details?}}`. */
export function errorBody(error: AppError): { success: false; error: { code: string; message: string; details?: unknown } } {
  return {
    success: false,
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  };
}
