import type { Redis } from '../common/redis';
import type { OutboxIntent, WrittenIntent } from '../common/outbox-intents';

/**
 * The fields of one outbox entry (common/outbox-intents.ts says what each type carries), for a
 * store step that writes an intent with XADD in the same MULTI as its state change. Lua scripts
 * write the same two fields from `intentArgs` (store/lua/lib/outbox.lua).
 */
export function outboxFields(intent: OutboxIntent): string[] {
  return ['type', intent.type, 'payload', JSON.stringify(intent.payload)];
}

/** The two ARGV a script that may write an intent takes: its type and payload ('', '' for none). */
export function intentArgs(intent: OutboxIntent | null): [string, string] {
  return intent === null ? ['', ''] : [intent.type, JSON.stringify(intent.payload)];
}

/** The intent a script wrote to `stream`, when its reply is the outbox entry id (a string) it wrote it under. */
export function writtenIntent(reply: unknown, intent: OutboxIntent, stream: string): WrittenIntent | null {
  return typeof reply === 'string' ? { stream, entryId: reply, intent } : null;
}

/** Appends `intent` to `stream` on its own (XADD), for a step whose state change is elsewhere. */
export async function appendIntent(redis: Redis, stream: string, intent: OutboxIntent): Promise<WrittenIntent> {
  const entryId = (await redis.xadd(stream, '*', ...outboxFields(intent))) as string;
  return { stream, entryId, intent };
}
