-- A random version-4 UUID stored as a pair of INT64 columns: its first and last 64 bits.
CREATE TABLE AccessLog (
  LogIdHigh INT64 NOT NULL,
  LogIdLow INT64 NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogIdHigh, LogIdLow);
