-- A sparse index ("Optimizing schema design for Cloud Spanner", STORING index clause): IsUnread
-- is TRUE for about one row in ten and NULL, not FALSE, for the rest, so the NULL_FILTERED index
-- holds the unread rows only: a small materialized view of them, scanned without a full copy.
CREATE TABLE AccessLog (
  LogId STRING(36) NOT NULL,
  UserId INT64 NOT NULL,
  LastAccess TIMESTAMP NOT NULL,
  IsUnread BOOL,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (LogId);

CREATE NULL_FILTERED INDEX AccessLogUnread ON AccessLog(IsUnread) STORING (WriteId);
