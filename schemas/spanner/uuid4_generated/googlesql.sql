-- uuid4_string with the database making every key: the insert leaves LogId out, the column
-- default GENERATE_UUID() fills it, and keybench learns it from INSERT ... THEN RETURN (DML:
-- on the emulator its cost grows with the table, emulator_bound).
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
