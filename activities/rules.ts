import type { NotificationChannel, NotificationRule } from '../common/contracts';
import { parsePin } from '../common/pins';
import type { Redis } from '../common/redis';
import { readDeviceRules } from '../store/rules';
import type { TwinRule } from '../common/twin-contracts';

const TWIN_CONDITIONS = new Set(['no_data', 'offline', 'online']);
const CHANNELS = new Set<NotificationChannel>(['inApp', 'push', 'email']);

/** The twin's view of one stored rule, or null when the twin does not watch it (threshold, disabled, malformed). */
export function toTwinRule(rule: Partial<NotificationRule>): TwinRule | null {
  if (typeof rule.id !== 'string' || !rule.enabled || !TWIN_CONDITIONS.has(rule.condition ?? '')) return null;
  const condition = rule.condition as TwinRule['condition'];
  let pin: string | null = null;
  if (rule.pin !== null && rule.pin !== undefined) {
    const parsed = parsePin(rule.pin);
    if (!parsed) return null;
    pin = parsed.name;
  }
  let duration: number | null = null;
  if (condition === 'no_data') {
    if (typeof rule.duration !== 'number' || !(rule.duration > 0)) return null;
    duration = rule.duration;
  }
  const forSeconds = condition !== 'no_data' && typeof rule.forSeconds === 'number' && rule.forSeconds > 0 ? rule.forSeconds : null;
  return {
    id: rule.id,
    condition,
    pin: condition === 'no_data' ? pin : null,
    duration,
    ...(forSeconds ? { forSeconds } : {}),
    message: typeof rule.message === 'string' ? rule.message : '',
    channels: (Array.isArray(rule.channels) ? rule.channels : ['inApp']).filter((c): c is NotificationChannel =>
      CHANNELS.has(c as NotificationChannel),
    ),
  };
}

/** The enabled no_data / offline / online rules of a device, in id order. */
export async function readTwinRules(redis: Redis, deviceId: string): Promise<TwinRule[]> {
  return (await readDeviceRules(redis, deviceId)).flatMap((rule) => {
    const twinRule = toTwinRule(rule);
    return twinRule ? [twinRule] : [];
  });
}
