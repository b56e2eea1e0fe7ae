/**
 * Every error the store raises, declared once with a stable code. The store knows nothing of HTTP:
 * the gateway's error middleware maps each code to an HTTP answer (gateway/http/error-handler.ts).
 */
export const STORE_ERRORS = {
  DEVICE_GONE: 'The device does not exist (any more)',
  PIN_LOCKED: 'The pin is locked: it takes no writes toward the device',
  DEVICE_RATE: "The device sent values faster than its owner's plan allows; this one was dropped",
  KEPT_CHANGING: 'The record kept changing while it was updated; try again',
  HISTORY_BACKLOG: 'The history stream is full: PostgreSQL is down or behind; nothing was written',
} as const satisfies Record<string, string>;

export type StoreErrorCode = keyof typeof STORE_ERRORS;

export class StoreError extends Error {
  constructor(readonly code: StoreErrorCode) {
    super(STORE_ERRORS[code]);
    this.name = 'StoreError';
  }
}

export function isStoreErrorCode(code: string): code is StoreErrorCode {
  return Object.hasOwn(STORE_ERRORS, code);
}
