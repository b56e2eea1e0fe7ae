-- writeIntent(stream, type, payload): appends an outbox intent (gateway/outbox/relay.ts carries it
-- out) in the calling script's atomic step; returns its entry id, or 1 when type is '' (no intent).
local function writeIntent(stream, intentType, payload)
  if intentType == '' then return 1 end
  return redis.call('XADD', stream, '*', 'type', intentType, 'payload', payload)
end
