import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { redisScript } from '../../common/redis-script';

/**
 * The ingest pipeline's one Redis round trip: checks the device exists and (for writes toward the
 * device) that the pin is not locked; stores the latest value (unless a newer one is there) and a
 * history point trimmed to the retention window; moves lastSeen forward for values the device
 * reported; flips the edge state of threshold rules and returns those that just crossed; and, for
 * a device the mirror does not show online, sets the short-lived wake marker (NX) so one signal
 * reaches the twin per burst. A write toward a device that is not online is kept for it (newest
 * value per pin), in the same step, for its twin to deliver when it comes online.
 */
const STORE_POINT = `
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return {'gone'} end
local pin, value, ts, iso = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if ARGV[6] == '1' and redis.call('HEXISTS', KEYS[5], pin) == 1 then return {'locked', projectId} end
local newer = 1
local current = redis.call('HGET', KEYS[2], pin)
if current then
  local ok, parsed = pcall(cjson.decode, current)
  if ok and type(parsed) == 'table' and type(parsed.updatedAt) == 'string' and parsed.updatedAt > iso then newer = 0 end
end
if newer == 1 then redis.call('HSET', KEYS[2], pin, cjson.encode({value = value, updatedAt = iso})) end
redis.call('ZADD', KEYS[3], ts, ARGV[3] .. ':' .. value)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[9])
local status = redis.call('HGET', KEYS[4], 'status') or 'offline'
if ARGV[6] == '1' and status ~= 'online' then
  redis.call('HSET', KEYS[8], pin, cjson.encode({value = value, queuedAt = ARGV[10]}))
end
local wake = 0
if ARGV[7] == '1' then
  local seen = redis.call('HGET', KEYS[4], 'lastSeen')
  if not seen or seen < iso then redis.call('HSET', KEYS[4], 'lastSeen', iso) end
  if status ~= 'online' and redis.call('SET', KEYS[7], '1', 'NX', 'EX', ARGV[8]) then wake = 1 end
end
local result = {'ok', projectId, status, wake, newer}
for i = 11, #ARGV, 2 do
  local previous = redis.call('HGET', KEYS[6], ARGV[i])
  redis.call('HSET', KEYS[6], ARGV[i], ARGV[i + 1])
  if ARGV[i + 1] == '1' and previous ~= '1' then result[#result + 1] = ARGV[i] end
end
return result`;

const run = redisScript(STORE_POINT);

export interface StorePointInput {
  deviceId: string;
  pin: string;
  value: string;
  at: Date;
  retentionMs: number;
  /** A write toward the device: honours pin locks, and is kept for the device when it is not online. */
  towardDevice: boolean;
  fromDevice: boolean;
  wakeTtlS: number;
  /** Rules whose condition the value decides: rule id → inside the condition now. */
  ruleStates: [string, boolean][];
}

export type StorePointResult =
  | { kind: 'gone' }
  | { kind: 'locked'; projectId: string }
  | { kind: 'stored'; projectId: string; online: boolean; wake: boolean; latest: boolean; crossed: string[] };

export async function storePoint(redis: Redis, input: StorePointInput): Promise<StorePointResult> {
  const ms = input.at.getTime();
  const reply = (await run(
    redis,
    [
      keys.device(input.deviceId),
      keys.devicePins(input.deviceId),
      keys.pinHistory(input.deviceId, input.pin),
      keys.deviceState(input.deviceId),
      keys.deviceLocks(input.deviceId),
      keys.deviceRuleState(input.deviceId),
      keys.deviceWake(input.deviceId),
      keys.devicePending(input.deviceId),
    ],
    [
      input.pin,
      input.value,
      ms,
      input.at.toISOString(),
      Date.now() - input.retentionMs,
      input.towardDevice ? '1' : '0',
      input.fromDevice ? '1' : '0',
      input.wakeTtlS,
      input.retentionMs,
      new Date().toISOString(),
      ...input.ruleStates.flatMap(([id, inside]) => [id, inside ? '1' : '0']),
    ],
  )) as (string | number)[];
  const [kind, projectId, status, wake, latest, ...crossed] = reply;
  if (kind === 'gone') return { kind: 'gone' };
  if (kind === 'locked') return { kind: 'locked', projectId: String(projectId) };
  return {
    kind: 'stored',
    projectId: String(projectId),
    online: status === 'online',
    wake: Number(wake) === 1,
    latest: Number(latest) === 1,
    crossed: crossed.map(String),
  };
}
