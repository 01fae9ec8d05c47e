-- Best practice #2: with LastAccess DESC, "the latest N rows of a user" is a short forward
-- scan that stops after N rows.
CREATE TABLE AccessLog (
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (UserId, LastAccess DESC);
