-- PostgreSQL dialect of interleaved_asc: the log interleaved in users, its time ascending.
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
