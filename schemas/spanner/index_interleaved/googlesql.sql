-- The index entries of a user live in that user's row tree, next to the rows they index:
-- "latest N for a user" reads one short stretch of one split.
-- No ON DELETE clause: the documents give none, and keybench never deletes a user.
CREATE TABLE Users (
  UserId INT64 NOT NULL,
) PRIMARY KEY (UserId);

CREATE TABLE AccessLog (
  UserId INT64 NOT NULL,
  LogId STRING(36) NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (UserId, LogId),
  INTERLEAVE IN PARENT Users;

CREATE INDEX AccessLogByUserTime ON AccessLog(UserId, LastAccess DESC), INTERLEAVE IN Users;
