-- "Spanner: Primary key migration strategies", migrating UUID key columns: the source's UUIDs are
-- kept as STRING(36) in RFC 4122 form, and GENERATE_UUID() as the column default makes new ones.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
