-- STORING copies the columns a read needs into the index: a time-window read is served by
-- the index alone, at the cost of a larger index and more bytes per write. NULL_FILTERED
-- leaves rows whose indexed column is NULL out of the index.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);

CREATE NULL_FILTERED INDEX AccessLogByLastAccessStoring ON AccessLog(LastAccess) STORING (UserId, WriteId);
