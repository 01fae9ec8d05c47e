-- Version-1 UUIDs begin with the low 32 bits of a 100-ns timestamp: consecutive inserts get
-- consecutive keys for about seven minutes at a time, then wrap around.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
