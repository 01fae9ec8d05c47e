-- interleaved with the log's time ascending: the user's row, then the oldest of the user's log
-- rows. Reading the user with the newest rows must pass over all the older ones first.
-- No ON DELETE clause: the documents give none, and keybench never deletes a user.
CREATE TABLE Users (
  UserId INT64 NOT NULL,
) PRIMARY KEY (UserId);

CREATE TABLE AccessLog (
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (UserId, LastAccess),
  INTERLEAVE IN PARENT Users;
