-- Random version-4 UUIDs in their 16 raw bytes: the spread of uuid4_string with a key less
-- than half its size.
CREATE TABLE AccessLog (
  LogId BYTES(16) NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
