-- PostgreSQL dialect of bit_reversed_sequence: keys from nextval() of a BIT_REVERSED_POSITIVE
-- sequence, learned through INSERT ... RETURNING.
CREATE SEQUENCE logidsequence BIT_REVERSED_POSITIVE;

CREATE TABLE accesslog (
  logid bigint NOT NULL DEFAULT nextval('logidsequence'),
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
