-- source: https://github.com/cccteam/ccc/blob/4e1c3b4409885baae3feeb9abc05a7f7ed8a89d9/resource/generation/testdata/migrations/000001_DataChangeEvents.up.sql
CREATE TABLE DataChangeEvents (
  TableName STRING(MAX) NOT NULL,
  RowId STRING(MAX) NOT NULL,
  EventTime TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp=true),
  EventSource STRING(MAX) NOT NULL,
  ChangeSet JSON,
) PRIMARY KEY (TableName, RowId, EventTime);
