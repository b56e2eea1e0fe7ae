-- Retention covers the rollups too: with the daily partitions that end on or before `cutoff`, the
-- one-minute rollups of those days go (row deletes: a day of one pin is 1,440 rows, not 86,400).
CREATE OR REPLACE FUNCTION drop_points_partitions_before(cutoff timestamptz) RETURNS SETOF text
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
  DELETE FROM rollup_1m WHERE minute < (date_trunc('day', cutoff AT TIME ZONE 'UTC') AT TIME ZONE 'UTC');
END $$;
