-- PostgreSQL dialect of index_monotonic. NULL_FILTERED is written as WHERE ... IS NOT NULL;
-- the emulator accepts it but stores the index without the filter (README.md, Emulator behaviour
-- keybench relies on). lastaccess is nullable, as on the page (see googlesql.sql).
CREATE TABLE accesslog (
  logid varchar(36) NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);

CREATE INDEX accesslogbylastaccess ON accesslog (lastaccess) WHERE lastaccess IS NOT NULL;
