-- Pin history: one row per accepted write. `seq` is the point's identity, so identical values in
-- the same millisecond stay separate points. Partitioned by day on ts (create_points_partitions).
CREATE TABLE points (
  device_id uuid NOT NULL,
  pin text NOT NULL,
  ts timestamptz NOT NULL,
  seq bigserial,
  value text NOT NULL,
  num double precision,
  PRIMARY KEY (device_id, pin, ts, seq)
) PARTITION BY RANGE (ts);

-- A time no daily partition covers (beyond the partitions made ahead, or older than retention)
-- lands here instead of failing the write (docs/operations.md says why). Creating that day's
-- partition later moves its rows out; retention deletes its old rows.
CREATE TABLE points_default PARTITION OF points DEFAULT;

-- Every node runs partition maintenance: this lock (held to the end of the caller's transaction)
-- makes concurrent calls take turns, so none trips over a table another is creating or dropping.
CREATE FUNCTION lock_points_partitions() RETURNS void
LANGUAGE sql AS $$ SELECT pg_advisory_xact_lock(6579300, 2) $$;

-- One partition per UTC day, named points_YYYYMMDD, from `from_day` for `days` days. Idempotent.
CREATE FUNCTION create_points_partitions(from_day date, days integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  day date;
  created integer := 0;
BEGIN
  PERFORM lock_points_partitions();
  FOR i IN 0 .. days - 1 LOOP
    day := from_day + i;
    IF to_regclass(format('points_%s', to_char(day, 'YYYYMMDD'))) IS NULL THEN
      -- Built beside the table, filled with any rows the default partition holds for that day,
      -- then attached: attaching never fails on rows that arrived before the partition existed.
      EXECUTE format('CREATE TABLE %I (LIKE points INCLUDING DEFAULTS)', format('points_%s', to_char(day, 'YYYYMMDD')));
      EXECUTE format(
        'WITH moved AS (DELETE FROM points_default WHERE ts >= %L AND ts < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
        (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'),
        format('points_%s', to_char(day, 'YYYYMMDD')));
      EXECUTE format(
        'ALTER TABLE points ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
        format('points_%s', to_char(day, 'YYYYMMDD')),
        (day::timestamp AT TIME ZONE 'UTC'),
        ((day + 1)::timestamp AT TIME ZONE 'UTC'));
      created := created + 1;
    END IF;
  END LOOP;
  RETURN created;
END $$;

-- Retention: drops every daily partition that ends on or before `cutoff` (whole tables, no row
-- deletes), and deletes the default partition's rows older than `cutoff`. Returns the names dropped.
CREATE FUNCTION drop_points_partitions_before(cutoff timestamptz) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  part record;
BEGIN
  PERFORM lock_points_partitions();
  FOR part IN
    SELECT c.relname
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'points'::regclass AND c.relname ~ '^points_[0-9]{8}$'
    ORDER BY c.relname
  LOOP
    IF ((to_date(substr(part.relname, 8), 'YYYYMMDD') + 1)::timestamp AT TIME ZONE 'UTC') <= cutoff THEN
      EXECUTE format('DROP TABLE %I', part.relname);
      RETURN NEXT part.relname;
    END IF;
  END LOOP;
  DELETE FROM points_default WHERE ts < cutoff;
END $$;
