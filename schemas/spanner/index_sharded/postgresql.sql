-- PostgreSQL dialect of index_sharded: a global index with an application-computed shard first.
CREATE TABLE accesslog (
  logid varchar(36) NOT NULL,
  shardid bigint NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);

CREATE INDEX accesslogbyshardtime ON accesslog (shardid, lastaccess);
