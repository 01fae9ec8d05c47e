-- The application keeps its counter but writes it bit-reversed: 1, 2, 3 become
-- 2^62, 2^61, 2^62 + 2^61, spread over the whole positive INT64 range.
CREATE TABLE AccessLog (
  LogId INT64 NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);
