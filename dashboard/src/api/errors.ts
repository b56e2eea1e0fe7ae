/** How the console words an error: a sentence for people, with the code kept in brackets for support. */

/** Codes whose meaning does not depend on where they happen, worded for the console. */
const SENTENCES: Record<string, string> = {
  USER_NOT_FOUND: 'No user with that email',
  INVALID_CREDENTIALS: 'Wrong email or password',
  UNAUTHORIZED: 'Your session has ended; sign in again',
  FORBIDDEN: 'Your role in this project does not allow this',
  PLAN_FEATURE_UNAVAILABLE: 'Your plan does not include this; it needs Pro or higher',
  PIN_LOCKED: 'The pin is locked: apps cannot write it until it is unlocked',
  VALUE_TOO_LARGE: 'The value is too long for this pin (V pins take 1024 bytes, D and A pins 16)',
  INVALID_PIN: 'Not a pin: use V0–V255, D0–D99 or A0–A15',
  RATE_LIMIT_EXCEEDED: 'Too many requests; wait a moment and try again',
  SERVICE_UNAVAILABLE: 'The service is briefly unavailable and nothing was changed; try again shortly',
  INTERNAL_ERROR: 'Something went wrong on the server',
  TIMEOUT: 'The server did not answer in time',
  BAD_RESPONSE: 'The server sent an answer the console could not read',
};

/** A field problem of a 400 VALIDATION_ERROR (docs/api.md). */
export interface FieldProblem {
  field: string;
  problem: string;
}

/** The part of a field path people know: `body.config.min` → `min`. */
const fieldName = (path: string): string => path.replace(/^(body|query|params)\./, '').replace(/^config\./, '');

/**
 * The sentence for an error the API (or a Socket.IO ack) answered: a known code's own wording, a
 * validation error's fields, else the server's message; always followed by the code.
 */
export function describeError(code: string, message: string, fields: readonly FieldProblem[] = []): string {
  let sentence = SENTENCES[code] ?? message;
  if (code === 'VALIDATION_ERROR' && fields.length > 0 && /^Invalid (body|query|params)\b/.test(message)) {
    sentence = `Check ${fields.map((f) => `${fieldName(f.field)}: ${f.problem}`).join('; ')}`;
  }
  return `${sentence.replace(/[.\s]+$/, '')} (${code})`;
}

/** Any thrown value as a sentence: errors with a code (ApiError, acks) through describeError. */
export function errorText(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'code' in err && 'message' in err) {
    const { code, message } = err as { code: unknown; message: unknown };
    const details = 'details' in err ? (err as { details: unknown }).details : undefined;
    if (typeof code === 'string' && typeof message === 'string') {
      return describeError(code, message, Array.isArray(details) ? (details as FieldProblem[]) : []);
    }
  }
  return err instanceof Error ? err.message : String(err);
}
