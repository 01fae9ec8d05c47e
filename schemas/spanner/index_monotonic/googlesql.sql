-- Best practice #3, as the page writes it: a Users table with a nullable LastAccess and a
-- NULL_FILTERED index on it. The index is a table of its own whose first key column is the
-- time, so its entries pile up at one end however well the base table spreads.
-- LastAccess is NULL for a user who never accessed (one row in four, by a stable hash of the
-- write: keys.NEVER_ACCESSED_ONE_IN), and NULL_FILTERED leaves those rows out of the index.
-- Where it departs from the page, and why: the page keys Users by UserId, one row per user
-- rewritten at each access. keybench writes a new row per insert and reads every write back,
-- so each insert is a new Users row keyed by a random UUID (UserUuid), which spreads as the
-- page's UserId key does; UserId is the workload's user, and CreatedAt keeps each write's time
-- (NOT NULL), which every read returns.
CREATE TABLE Users (
  UserUuid STRING(36) NOT NULL,
  UserId INT64 NOT NULL,
  CreatedAt TIMESTAMP NOT NULL,
  LastAccess TIMESTAMP,
  WriteId STRING(64) NOT NULL,
  Payload STRING(MAX),
) PRIMARY KEY (UserUuid);

CREATE NULL_FILTERED INDEX UsersByLastAccess ON Users(LastAccess);
