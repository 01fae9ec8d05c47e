-- PostgreSQL dialect of migrate_start_counter: START COUNTER WITH 11000, past the source's
-- bit-reversed counters 1..1000.
CREATE SEQUENCE logidsequence BIT_REVERSED_POSITIVE START COUNTER WITH 11000;

CREATE TABLE accesslog (
  logid bigint NOT NULL DEFAULT nextval('logidsequence'),
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
