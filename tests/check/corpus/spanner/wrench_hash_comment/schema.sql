-- source: https://github.com/cloudspannerecosystem/wrench/blob/67b5c48b7dd3a7003279387c2cf630234d3f18f7/pkg/spanner/testdata/schema.sql
CREATE TABLE SchemaMigrations (
  Version INT64 NOT NULL,
  Dirty BOOL NOT NULL,
) PRIMARY KEY(Version);

CREATE TABLE Singers (
  SingerID STRING(36) NOT NULL,
  FirstName STRING(1024),
) PRIMARY KEY(SingerID);

CREATE TABLE TableWithComments (
  ID STRING(36) NOT NULL,
) PRIMARY KEY(ID);
