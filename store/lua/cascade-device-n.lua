-- Deletes a device and everything it owns in one atomic step (store/lua/cascade.ts).
-- Key count: KEYS holds only the root (device:{id}); every other key is derived inside from the
-- key scheme templates, since which pins, rules and widgets exist is only known inside Redis.
-- KEYS: 1 device:{id}. ARGV: 1 key scheme templates (JSON), 2 device id.
-- Returns 1 deleted, 0 it did not exist.
-- #include lib/delete-device.lua
return deleteDevice(ARGV[2])
