-- PostgreSQL dialect of bit_reversed_app: the application's counter, bit-reversed.
CREATE TABLE accesslog (
  logid bigint NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
