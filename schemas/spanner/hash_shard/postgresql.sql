-- PostgreSQL dialect of hash_shard: an application-computed shard number first.
CREATE TABLE accesslog (
  shardid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  userid bigint NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (shardid, lastaccess, userid)
);
