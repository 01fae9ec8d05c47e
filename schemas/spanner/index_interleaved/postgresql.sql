-- PostgreSQL dialect of index_interleaved: the index lives in the users row trees.
-- No ON DELETE clause: the documents give none, and keybench never deletes a user.
CREATE TABLE users (
  userid bigint NOT NULL,
  PRIMARY KEY (userid)
);

CREATE TABLE accesslog (
  userid bigint NOT NULL,
  logid varchar(36) NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (userid, logid)
) INTERLEAVE IN PARENT users;

CREATE INDEX accesslogbyusertime ON accesslog (userid, lastaccess DESC) INTERLEAVE IN users;
