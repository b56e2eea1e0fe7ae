-- Keeps a device's OTA status report for its job (store/jobs.ts report): only when the device is
-- one of the job's targets, and never over a final report (done, failed) with a progress one. The
-- gateway handles a device's messages concurrently, so a progress report published just before a
-- `failed` can land after it; overwritten, the job would follow the device for good.
-- KEYS: 1 the job's devices, 2 the job's reports. ARGV: 1 device id, 2 the report (JSON), 3 '1'
-- when the report is final. Returns 1 kept or ignored as stale, 0 not a target.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[3] ~= '1' then
  local previous = redis.call('HGET', KEYS[2], ARGV[1])
  if previous then
    local state = cjson.decode(previous).state
    if state == 'done' or state == 'failed' then return 1 end
  end
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
