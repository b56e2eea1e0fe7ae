/**
 * The fields of one outbox entry (see gateway/outbox/intents.ts for what each type carries), for
 * a store step that writes an intent with XADD in the same MULTI as its state change. Lua scripts
 * write the same two fields.
 */
export function outboxFields(type: string, payload: unknown): string[] {
  return ['type', type, 'payload', JSON.stringify(payload)];
}
