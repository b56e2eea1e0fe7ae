-- keepWithin(key, cutoff, retentionMs): a notification sorted set (scores: createdAt, epoch ms)
-- without its entries older than `cutoff`, expiring when its newest entry does (newest +
-- retention), so a set nobody writes or reads again is gone with its last record
-- (docs/limits.md "Notifications"). A key without a TTL gets one; a later expiry is never shortened.
local function keepWithin(key, cutoff, retentionMs)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. cutoff)
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]
  if newest == nil then return end
  local expireAt = tonumber(newest) + tonumber(retentionMs)
  if redis.call('PEXPIRETIME', key) < expireAt then redis.call('PEXPIREAT', key, expireAt) end
end
