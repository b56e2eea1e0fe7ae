-- tellTwin(stateKey, stream, kind, message, now, windowMs): a device's `status` or `info` message
-- for its twin, at most one a window (a second) each (DESIGN §11). `message` is the intent's
-- payload as a table (deviceId, projectId, at, and `status`/`reason` or `info`). The first of a
-- window is written at once as its intent (twin-status, twin-info); later ones in the window are
-- merged (info: field by field; status: the last wins) into `msg:{kind}` of the device's state
-- hash, and one `twin-held` intent, due when the window ends, carries what was merged then
-- (gateway/outbox/carry-out.ts). The window after a held intent starts when it is due.
-- Fields of the state hash: msg:{kind} (held JSON), msg:{kind}:until (ms), msg:{kind}:held
-- ('1' while a twin-held intent is written), msg:status:last (the last status told or held).
-- Needs lib/outbox.lua. Returns the intent's entry id, or 'merged' when held for the window's end.
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
  local untilMs = tonumber(redis.call('HGET', stateKey, field .. ':until') or '0')
  if now >= untilMs then
    redis.call('HSET', stateKey, field .. ':until', now + windowMs)
    redis.call('HDEL', stateKey, field)
    return writeIntent(stream, kind == 'status' and 'twin-status' or 'twin-info', cjson.encode(message))
  end
  redis.call('HSET', stateKey, field, cjson.encode(message))
  if redis.call('HEXISTS', stateKey, field .. ':held') == 1 then return 'merged' end
  redis.call('HSET', stateKey, field .. ':held', '1', field .. ':until', untilMs + windowMs)
  return writeIntent(stream, 'twin-held', cjson.encode({deviceId = message.deviceId, projectId = message.projectId, kind = kind, dueMs = untilMs}))
end
