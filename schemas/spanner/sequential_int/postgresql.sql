-- PostgreSQL dialect of sequential_int: a counter as the key (the emulator refuses SERIAL,
-- so the application counts, as an auto-increment habit would).
CREATE TABLE accesslog (
  logid bigint NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
