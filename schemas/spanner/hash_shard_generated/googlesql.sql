-- hash_shard with the shard computed by the database from the row itself. Writes spread
-- over 4,095 shard values; a read by time must visit every one of them.
CREATE TABLE AccessLog (
  LastAccess TIMESTAMP NOT NULL,
  ShardId INT64 NOT NULL AS (MOD(FARM_FINGERPRINT(CAST(LastAccess AS STRING)), 2048)) STORED,
  UserId INT64 NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (ShardId, LastAccess, UserId);
