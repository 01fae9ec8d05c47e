-- The first key part still changes monotonically, only downwards: every insert lands at the
-- top of the key space instead of the end, in whichever split holds it.
CREATE TABLE AccessLog (
  LastAccess TIMESTAMP NOT NULL,
  UserId INT64 NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LastAccess DESC, UserId);
