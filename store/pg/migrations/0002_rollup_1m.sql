-- One-minute rollups per device and pin; 5m/1h/1d aggregates are sums over these rows.
CREATE TABLE rollup_1m (
  device_id uuid NOT NULL,
  pin text NOT NULL,
  minute timestamptz NOT NULL,
  count bigint NOT NULL,
  sum double precision NOT NULL,
  min double precision NOT NULL,
  max double precision NOT NULL,
  PRIMARY KEY (device_id, pin, minute)
);
