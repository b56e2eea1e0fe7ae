-- tellTwin(stateKey, stream, kind, message, now, windowMs): a device's `status` or `info` message
-- for its twin, at most one signal a window (a second) each (DESIGN §11). `message` is the payload
-- as a table (deviceId, projectId, at, and `status`/`reason` or `info`). Messages are merged
-- (info: field by field; status: the last wins) into `msg:{kind}` of the device's state hash, and
-- one `twin-held` intent at a time carries what is merged when it is carried out
-- (gateway/outbox/carry-out.ts): due at once when the last window has ended, else when it ends.
-- One intent at a time keeps the twin told in order: no older message can overtake a newer one.
-- Fields of the state hash: msg:{kind} (merged JSON), msg:{kind}:held ('1' while its intent is
-- outstanding), msg:{kind}:until (ms: when the next intent may come due), msg:status:last (the
-- last status held). Needs lib/outbox.lua. Returns the intent's entry id, or 'merged'.
local function tellTwin(stateKey, stream, kind, message, now, windowMs)
  local field = 'msg:' .. kind
  local heldJson = redis.call('HGET', stateKey, field)
  if heldJson and kind == 'info' then
    local held = cjson.decode(heldJson)
    for name, value in pairs(message.info) do held.info[name] = value end
    held.at = message.at
    message = held
  end
  if kind == 'status' then redis.call('HSET', stateKey, 'msg:status:last', message.status) end
  redis.call('HSET', stateKey, field, cjson.encode(message))
  if redis.call('HEXISTS', stateKey, field .. ':held') == 1 then return 'merged' end
  local due = math.max(now, tonumber(redis.call('HGET', stateKey, field .. ':until') or '0'))
  redis.call('HSET', stateKey, field .. ':held', '1', field .. ':until', due + windowMs)
  return writeIntent(stream, 'twin-held', cjson.encode({deviceId = message.deviceId, projectId = message.projectId, kind = kind, dueMs = due}))
end
