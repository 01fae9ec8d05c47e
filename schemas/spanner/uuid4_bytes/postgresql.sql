-- PostgreSQL dialect of uuid4_bytes: the 16 raw bytes of a version-4 UUID in a bytea key.
CREATE TABLE accesslog (
  logid bytea NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
