-- PostgreSQL dialect of migrate_uuid: the source's UUIDs kept as varchar(36), new ones from
-- DEFAULT spanner.generate_uuid().
CREATE TABLE accesslog (
  logid varchar(36) NOT NULL DEFAULT spanner.generate_uuid(),
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
