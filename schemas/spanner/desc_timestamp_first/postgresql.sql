-- PostgreSQL dialect of desc_timestamp_first. NOT THE DOCUMENTED FORM: the emulator refuses DESC
-- in a PostgreSQL primary key. The nearest equivalent keeps the key (lastaccess, userid)
-- ascending and adds an index on (lastaccess DESC, userid): both grow at one end.
CREATE TABLE accesslog (
  lastaccess timestamptz NOT NULL,
  userid bigint NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (lastaccess, userid)
);

CREATE INDEX accesslogbytimedesc ON accesslog (lastaccess DESC, userid);
