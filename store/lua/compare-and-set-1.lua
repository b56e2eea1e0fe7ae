-- Writes a JSON document only while it still holds what was read (store/lua/replace-if-unchanged.ts).
-- KEYS: 1 the document. ARGV: 1 the JSON it must still hold, 2 its replacement.
-- Returns 1 written, 0 changed meanwhile, -1 gone.
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
