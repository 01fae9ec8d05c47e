-- PostgreSQL dialect of migrate_skip_range: SKIP RANGE 1 4294967296 keeps the sequence out of
-- the migrated keys' range.
-- As in googlesql.sql, the counter starts at 2^31 (keybench's addition): its bit-reversed value
-- 2^31 lies in the source's range, so without the skip range the first insert collides.
CREATE SEQUENCE logidsequence BIT_REVERSED_POSITIVE SKIP RANGE 1 4294967296 START COUNTER WITH 2147483648;

CREATE TABLE accesslog (
  logid bigint NOT NULL DEFAULT nextval('logidsequence'),
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
