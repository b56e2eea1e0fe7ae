import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

const ADMIT = luaScript('admit-email-2');

/** Seconds between two emails of one rule and device. */
export const EMAIL_INTERVAL_S = 60;
/** How long a day's count outlives its UTC day (a late retry still finds it). */
const DAY_KEPT_S = 2 * 86_400;

export type Admission = 'ok' | 'throttled' | 'capped';

export interface EmailToAdmit {
  /** The notification: a retry of its email is admitted again and counted once. */
  id: string;
  /** The account whose budget it spends: the owner of the project whose rule sends. */
  ownerId: string;
  /** Null for what a device sends through the notify endpoints: those share one budget per device. */
  ruleId: string | null;
  deviceId: string | null;
}

/**
 * Whether a notification may be emailed now (DESIGN §11): one email per rule and device a minute,
 * at most `dailyCap` per account and UTC day. One atomic step in the owner's slot.
 */
export async function admitEmail(redis: Redis, email: EmailToAdmit, dailyCap: number): Promise<Admission> {
  const day = new Date().toISOString().slice(0, 10);
  const reply = await ADMIT(
    redis,
    [keys.mailRuleDevice(email.ownerId, email.ruleId ?? 'notify', email.deviceId ?? 'project'), keys.mailDay(email.ownerId, day)],
    [email.id, dailyCap, DAY_KEPT_S, EMAIL_INTERVAL_S],
  );
  if (reply !== 'ok' && reply !== 'throttled' && reply !== 'capped') throw new Error(`admit-email-2 answered ${String(reply)}`);
  return reply;
}
