-- Version-4 UUIDs spread inserts over the whole key space. Costs: a 36-byte key with no
-- meaning, and no locality between a user's rows (reads by user scan the table).
-- The DEFAULT serves clients that omit LogId; keybench supplies seeded UUIDs so that it
-- knows every key it wrote.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
