-- A notification read's first step (store/notification-queries.ts): the sets it is about to count
-- and page lose their entries past the retention (lib/notification-retention.lua), so its counts
-- are exact; a set a member read without anything new written since still expires with its newest
-- entry. All of one project's slot.
-- KEYS: 1... notification sorted sets of one project (its index, a filter set, a member's unread set).
-- ARGV: 1 cutoff (epoch ms: older entries go), 2 retention (ms).
-- Returns 1.
-- #include lib/notification-retention.lua
for _, key in ipairs(KEYS) do keepWithin(key, ARGV[1], ARGV[2]) end
return 1
