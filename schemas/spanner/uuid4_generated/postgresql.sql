-- PostgreSQL dialect of uuid4_generated: varchar(36) DEFAULT spanner.generate_uuid(), learned
-- through INSERT ... RETURNING (the emulator refuses the uuid type).
CREATE TABLE accesslog (
  logid varchar(36) NOT NULL DEFAULT spanner.generate_uuid(),
  userid bigint NOT NULL,
  lastaccess timestamptz NOT NULL,
  writeid varchar(64) NOT NULL,
  payload varchar,
  PRIMARY KEY (logid)
);
