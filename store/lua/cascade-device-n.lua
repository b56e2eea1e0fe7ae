-- Deletes a device and everything it owns in one atomic step (store/lua/cascade.ts).
-- Key count: KEYS holds only the root (device:{id}); every other key is derived inside from the
-- key scheme templates, since which pins, rules and widgets exist is only known inside Redis.
-- KEYS: 1 device:{id}, 2 the outbox stream. ARGV: 1 key scheme templates (JSON), 2 device id.
-- Returns the device-retire intent's entry id, or 0 when it did not exist.
-- #include lib/delete-device.lua
return deleteDevice(ARGV[2], KEYS[2])
