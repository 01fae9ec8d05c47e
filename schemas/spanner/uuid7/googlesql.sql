-- Version-7 UUIDs (RFC 9562) start with a 48-bit millisecond timestamp, so they sort by time:
-- a database-friendly UUID for B-trees, a hotspot for range-partitioned Spanner.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
