-- Interleaving keeps a user's log rows in the user's row tree, next to the user row: reads
-- of one user stay in one split (and one row tree's throughput is bounded by one node).
-- No ON DELETE clause: the documents give none, and keybench never deletes a user.
CREATE TABLE Users (
  UserId INT64 NOT NULL,
) PRIMARY KEY (UserId);

CREATE TABLE AccessLog (
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (UserId, LastAccess DESC),
  INTERLEAVE IN PARENT Users;
