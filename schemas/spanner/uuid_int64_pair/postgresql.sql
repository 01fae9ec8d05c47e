-- PostgreSQL dialect of uuid_int64_pair: a version-4 UUID in two bigint columns.
CREATE TABLE accesslog (
  logidhigh bigint NOT NULL,
  logidlow bigint NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logidhigh, logidlow)
);
