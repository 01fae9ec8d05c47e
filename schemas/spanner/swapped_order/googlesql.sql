-- The fix of best practice #1: the high-cardinality UserId first spreads inserts over all
-- users' key ranges, and a user's rows stay together for "latest N for a user".
CREATE TABLE AccessLog (
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (UserId, LastAccess);
