-- The fix for a hot global index: a shard number first spreads the index's entries over N
-- places, and a read by time visits all N.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL,
  ShardId INT64 NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);

CREATE INDEX AccessLogByShardTime ON AccessLog(ShardId, LastAccess);
