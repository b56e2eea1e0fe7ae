-- publishDeviceEvent(route, projectId, deviceId, event, payload): publishes a device event
-- (docs/realtime.md) in the calling script's atomic step, the one that took its sequence number,
-- to the rooms of the device's project and of the device, as @socket.io/redis-emitter publishes a
-- broadcast to several rooms (the gateways' Redis adapter reads it): [uid, packet, opts] in
-- MessagePack on the namespace's channel. `route` is {channel, project room prefix, device room
-- prefix} (common/device-event-route.ts passes them as three ARGV).
local function publishDeviceEvent(route, projectId, deviceId, event, payload)
  local rooms = {route[2] .. projectId, route[3] .. deviceId}
  redis.call('PUBLISH', route[1], cmsgpack.pack({'emitter', {type = 2, data = {event, payload}, nsp = '/'}, {rooms = rooms}}))
end

-- commandEvent(record, seq): a `command` event's payload: the record as store/commands.ts
-- commandView shows it (without projectId and createdMs; a record just made or moved is not past
-- its expiry), with the event's sequence number.
local function commandEvent(record, seq)
  local view = {}
  for field, v in pairs(record) do
    if field ~= 'projectId' and field ~= 'createdMs' then view[field] = v end
  end
  view.seq = seq
  return view
end
