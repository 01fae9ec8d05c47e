-- source: https://github.com/sinmetal/spanner_swamp/blob/2f6dbaeabaef86db23a7d1cc5d2cc3b7a5f00039/ddl/sharding-sample.sql
CREATE TABLE ShardingSamples (
  ShardingSampleID STRING(32) NOT NULL,
  ShardID INT64 NOT NULL,
  CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
  UpdatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
) PRIMARY KEY (ShardingSampleID);

CREATE INDEX ShardingSamplesByShardIDAndUpdatedAtDesc
ON ShardingSamples (
  ShardID,
  UpdatedAt DESC
);