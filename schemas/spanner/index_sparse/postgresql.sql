-- PostgreSQL dialect of index_sparse: NULL_FILTERED is WHERE isunread IS NOT NULL. The emulator
-- accepts it but stores the index without the filter (README.md, Emulator behaviour keybench
-- relies on); the key stream follows the real service, where the index holds the unread rows only.
CREATE TABLE accesslog (
  logid varchar(36) NOT NULL,
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  isunread boolean,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);

CREATE INDEX accesslogunread ON accesslog (isunread) INCLUDE (writeid) WHERE isunread IS NOT NULL;
