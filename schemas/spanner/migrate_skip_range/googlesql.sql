-- "Spanner: Primary key migration strategies": keep the migrated rows' keys, and let a bit-reversed sequence generate new ones
-- outside the range the source used, so that no new key can collide with a migrated one.
-- keybench's own addition, not the document's: the counter starts at 2^31, whose bit-reversed
-- value is 2^31 itself, inside the source's range. A young sequence's values all lie above 2^32
-- and would never meet a source key; from this counter, the very first insert is where a missing
-- skip range shows (the source holds key 2^31, see strategy.toml).
CREATE SEQUENCE LogIdSequence OPTIONS (
  sequence_kind = "bit_reversed_positive",
  skip_range_min = 1,
  skip_range_max = 4294967296,
  start_with_counter = 2147483648
);

-- The column default GET_NEXT_SEQUENCE_VALUE(SEQUENCE ...) is Spanner's usage of a sequence,
-- not text of the source documents, which show only the CREATE SEQUENCE.
CREATE TABLE AccessLog (
  LogId INT64 NOT NULL DEFAULT (GET_NEXT_SEQUENCE_VALUE(SEQUENCE LogIdSequence)),
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
