-- PostgreSQL dialect of migrate_skip_range: SKIP RANGE 1 4294967296 keeps the sequence out of
-- the migrated keys' range.
CREATE SEQUENCE logidsequence BIT_REVERSED_POSITIVE SKIP RANGE 1 4294967296;

CREATE TABLE accesslog (
  logid bigint NOT NULL DEFAULT nextval('logidsequence'),
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
