-- PostgreSQL dialect of index_storing: STORING is INCLUDE; NULL_FILTERED is WHERE ... IS NOT
-- NULL, which the emulator accepts but stores without the filter (README.md, Emulator behaviour keybench relies on).
CREATE TABLE accesslog (
  logid varchar(36) NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);

CREATE INDEX accesslogbylastaccessstoring ON accesslog (lastaccess) INCLUDE (userid, writeid)
  WHERE lastaccess IS NOT NULL;
