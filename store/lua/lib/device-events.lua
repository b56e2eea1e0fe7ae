-- publishDeviceEvent(route, projectId, deviceId, event, payload): publishes a device event
-- (docs/realtime.md) in the calling script's atomic step, the one that took its sequence number,
-- to the rooms of the device's project and of the device, as @socket.io/redis-emitter publishes a
-- broadcast (the gateways' Redis adapter reads it): [uid, packet, opts] in MessagePack, on the
-- channel of the project's watch room, which only nodes with a socket watching the project decode.
-- `route` is {watch channel prefix, project room prefix, device room prefix}
-- (common/device-event-route.ts passes them as three ARGV).
local function publishDeviceEvent(route, projectId, deviceId, event, payload)
  local rooms = {route[2] .. projectId, route[3] .. deviceId}
  redis.call('PUBLISH', route[1] .. projectId .. '#', cmsgpack.pack({'emitter', {type = 2, data = {event, payload}, nsp = '/'}, {rooms = rooms}}))
end

-- recordEvent(record, hidden, seq): the payload of an event that shows a stored record: the record
-- without the fields only the store uses (`hidden`, a set of names), with the event's sequence number.
local function recordEvent(record, hidden, seq)
  local view = {}
  for field, v in pairs(record) do
    if not hidden[field] then view[field] = v end
  end
  view.seq = seq
  return view
end

-- commandEvent(record, seq): a `command` event's payload: the record as store/commands.ts
-- commandView shows it (a record just made or moved is not past its expiry).
local function commandEvent(record, seq)
  return recordEvent(record, {projectId = true, createdMs = true}, seq)
end

-- statusEvent(deviceId, status, lastSeen, reason, seq): a `device:status` event's payload; lastSeen
-- and reason are '' or nil for none (null in the event).
local function statusEvent(deviceId, status, lastSeen, reason, seq)
  local function orNull(v)
    if v == nil or v == '' then return cjson.null end
    return v
  end
  return {deviceId = deviceId, status = status, lastSeen = orNull(lastSeen), reason = orNull(reason), seq = seq}
end

-- alarmEvent(record, seq): an `alarm` event's payload: the record as store/alarms.ts toAlarm shows it.
local function alarmEvent(record, seq)
  return recordEvent(record, {lastEdgeId = true}, seq)
end
