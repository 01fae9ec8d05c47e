-- The database generates every key from a bit_reversed_positive sequence, spread uniformly
-- over the positive INT64 range. keybench learns each key from INSERT ... THEN RETURN, which
-- makes these inserts DML: on the emulator their cost grows with the table (emulator_bound).
CREATE SEQUENCE LogIdSequence OPTIONS (sequence_kind = "bit_reversed_positive");

-- The column default GET_NEXT_SEQUENCE_VALUE(SEQUENCE ...) is Spanner's usage of a sequence,
-- not text of the source documents, which show only the CREATE SEQUENCE.
CREATE TABLE AccessLog (
  LogId INT64 NOT NULL DEFAULT (GET_NEXT_SEQUENCE_VALUE(SEQUENCE LogIdSequence)),
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
