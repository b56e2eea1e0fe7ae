-- After a `twin-held` intent told the twin what was held (lib/twin-messages.lua): the held message
-- goes, and the window may hold again, only if nothing was merged into it since it was read.
-- KEYS: 1 device:{id}:state. ARGV: 1 the kind (status, info), 2 the held JSON as read ('' for none).
-- Returns 1 settled, 0 changed since (the intent must tell the twin again).
local field = 'msg:' .. ARGV[1]
local held = redis.call('HGET', KEYS[1], field) or ''
if held ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], field, field .. ':held')
return 1
