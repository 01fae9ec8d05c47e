-- Anti-pattern, best practice #1 of "Spanner: Schema design best practices": the first key part grows with time, so
-- every insert lands at the end of the key space, in whichever split holds it.
CREATE TABLE AccessLog (
  LastAccess TIMESTAMP NOT NULL,
  UserId INT64 NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LastAccess, UserId);
