-- PostgreSQL dialect of uuid1: a time-ordered UUID as text.
CREATE TABLE accesslog (
  logid varchar(36) NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
