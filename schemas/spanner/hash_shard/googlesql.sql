-- A shard number computed by the application from the row's own fields comes first, so
-- consecutive inserts land in N different places. A read by time must visit all N shards.
CREATE TABLE AccessLog (
  ShardId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  UserId INT64 NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (ShardId, LastAccess, UserId);
