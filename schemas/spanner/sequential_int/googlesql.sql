-- Anti-pattern "sequences" of "Optimizing schema design for Cloud Spanner": a counter as the
-- key. Every insert takes the next number, so every insert lands at the end of the key space.
CREATE TABLE AccessLog (
  LogId INT64 NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
