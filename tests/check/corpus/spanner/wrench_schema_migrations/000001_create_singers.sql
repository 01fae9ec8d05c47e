-- source: https://github.com/RoryQ/wrench/blob/ee62fc8db0b307c6ae747ee51fe1504bbda13b47/cmd/testdata/schema_test/migrations/000001_create_singers.sql
CREATE TABLE Singers (
  SingerID STRING(36) NOT NULL,
  FirstName STRING(1024),
) PRIMARY KEY(SingerID);