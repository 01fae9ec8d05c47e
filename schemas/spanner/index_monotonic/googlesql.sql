-- Best practice #3: an index is a table of its own. Its first key column is the time, so its
-- entries pile up at one end however well the base table spreads. LastAccess is nullable, as
-- the page's Users table has it; but every row keybench writes is an access with its time, so
-- here NULL_FILTERED leaves no row out (index_sparse shows an index that does filter). The page's
-- table is keyed by UserId, one row per user rewritten at each access; keybench keeps one row per
-- access (keyed by a UUID), because it reads every write back.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);

CREATE NULL_FILTERED INDEX AccessLogByLastAccess ON AccessLog(LastAccess);
