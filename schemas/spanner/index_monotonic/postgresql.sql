-- PostgreSQL dialect of index_monotonic (see googlesql.sql for the design and where it departs
-- from the page). NULL_FILTERED is written as WHERE lastaccess IS NOT NULL; the emulator accepts
-- it but stores the index without the filter (README.md, Emulator behaviour keybench relies on).
-- keybench's key stream follows the real service, where the index holds the rows with a
-- lastaccess only; a time-window read through the index finds no NULL in its range either way.
CREATE TABLE users (
  useruuid varchar(36) NOT NULL,
  userid bigint NOT NULL,
  createdat timestamptz NOT NULL,
  lastaccess timestamptz,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (useruuid)
);

CREATE INDEX usersbylastaccess ON users (lastaccess) WHERE lastaccess IS NOT NULL;
