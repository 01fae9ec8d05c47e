-- PostgreSQL dialect of hash_shard_generated: spanner.farm_fingerprint of the timestamp's text,
-- a stored generated column. lastaccess::text has the same form as GoogleSQL's CAST.
CREATE TABLE accesslog (
  lastaccess timestamptz NOT NULL,
  shardid bigint NOT NULL GENERATED ALWAYS AS (mod(spanner.farm_fingerprint(lastaccess::text), 2048)) STORED,
  userid bigint NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (shardid, lastaccess, userid)
);
