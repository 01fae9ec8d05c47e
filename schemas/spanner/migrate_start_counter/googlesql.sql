-- "Spanner: Primary key migration strategies": the source already used bit-reversed counters up to 1000. A sequence whose
-- counter starts at 11000 generates bit-reversed values the source can never have used.
CREATE SEQUENCE LogIdSequence OPTIONS (sequence_kind = "bit_reversed_positive");

ALTER SEQUENCE LogIdSequence SET OPTIONS (start_with_counter = 11000);

-- The column default GET_NEXT_SEQUENCE_VALUE(SEQUENCE ...) is Spanner's usage of a sequence,
-- not text of the source documents, which show only the CREATE SEQUENCE.
CREATE TABLE AccessLog (
  LogId INT64 NOT NULL DEFAULT (GET_NEXT_SEQUENCE_VALUE(SEQUENCE LogIdSequence)),
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
