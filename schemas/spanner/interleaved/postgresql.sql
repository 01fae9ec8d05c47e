-- PostgreSQL dialect of interleaved. NOT THE DOCUMENTED FORM: the emulator refuses DESC in a
-- PostgreSQL primary key, so the log's key is (userid, lastaccess) ascending, still
-- interleaved in users, with a DESC index interleaved in users for "latest N for a user".
-- No ON DELETE clause: the documents give none, and keybench never deletes a user.
CREATE TABLE users (
  userid bigint NOT NULL,
  PRIMARY KEY (userid)
);

CREATE TABLE accesslog (
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (userid, lastaccess)
) INTERLEAVE IN PARENT users;

CREATE INDEX accesslogbyusertimedesc ON accesslog (userid, lastaccess DESC) INCLUDE (writeid) INTERLEAVE IN users;
