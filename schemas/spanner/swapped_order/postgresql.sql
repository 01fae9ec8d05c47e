-- PostgreSQL dialect of swapped_order: the user first, then the time.
CREATE TABLE accesslog (
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (userid, lastaccess)
);
