-- source: https://github.com/cloudspannerecosystem/wrench/blob/0d115a562a2a86442154abcef2ed280c9ac68f91/pkg/spanner/testdata/migrations/000004.sql
-- Change Singers.LastName to NOT NULL
ALTER TABLE Singers ALTER COLUMN LastName STRING(MAX) NOT NULL;
