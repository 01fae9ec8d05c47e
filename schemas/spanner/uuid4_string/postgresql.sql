-- PostgreSQL dialect of uuid4_string: varchar(36) DEFAULT spanner.generate_uuid() (the uuid
-- type is refused by the emulator).
CREATE TABLE accesslog (
  logid varchar(36) NOT NULL DEFAULT spanner.generate_uuid(),
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
