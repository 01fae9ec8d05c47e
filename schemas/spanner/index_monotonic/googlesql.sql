-- Best practice #3: an index is a table of its own. Its first key column is the time, so its
-- entries pile up at one end however well the base table spreads.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);

CREATE NULL_FILTERED INDEX AccessLogByLastAccess ON AccessLog(LastAccess);
