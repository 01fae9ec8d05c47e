-- PostgreSQL dialect of timestamp_first: the first key part grows with time.
CREATE TABLE accesslog (
  lastaccess timestamptz NOT NULL,
  userid bigint NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (lastaccess, userid)
);
