-- PostgreSQL dialect of desc_timestamp. NOT THE DOCUMENTED FORM: the emulator refuses
-- PRIMARY KEY (userid, lastaccess DESC) in PostgreSQL (a syntax error). The nearest faithful
-- equivalent keeps the key ascending and adds a DESC index that includes writeid, so
-- "latest N for a user" is still a short forward scan that stops after N entries.
CREATE TABLE accesslog (
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (userid, lastaccess)
);

CREATE INDEX accesslogbyusertimedesc ON accesslog (userid, lastaccess DESC) INCLUDE (writeid);
