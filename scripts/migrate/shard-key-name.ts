import { keys } from '../../common/redis-keys';

/**
 * The name a key of the pre-shard scheme has under the shard scheme (docs/operations.md "Redis key
 * migration"), or null when it keeps its name (lookups by hash, email or login subject) or is
 * dropped (rate-limit counters, which expire within a day; the old streams, which are drained first).
 */
export function shardKeyName(old: string): string | null {
  if (old.includes('{')) return null;
  const m = /^(device|project|user|apikey|rule|widget|notification|command):([^:]+)(?::(.*))?$/.exec(old);
  if (!m) return null;
  const [, kind, id, rest] = m as unknown as [string, string, string, string | undefined];
  if ((kind === 'device' && (id === 'dt' || id === 'iot')) || (kind === 'user' && id === 'email') || (kind === 'apikey' && id === 'hash')) return null;
  const base: Record<string, (id: string) => string> = {
    device: keys.device,
    project: keys.project,
    user: keys.user,
    apikey: keys.apiKey,
    rule: keys.rule,
    widget: keys.widget,
    notification: keys.notification,
    command: keys.command,
  };
  const renamed = (base[kind] as (id: string) => string)(id);
  return rest === undefined ? renamed : `${renamed}:${rest}`;
}
