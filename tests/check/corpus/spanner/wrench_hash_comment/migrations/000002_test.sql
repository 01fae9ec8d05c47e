-- source: https://github.com/cloudspannerecosystem/wrench/blob/9432313f606f9410528612e935ffb3f2f9b6d42c/pkg/spanner/testdata/migrations/000002_test.sql
-- Comments must be ignored
ALTER TABLE Singers ADD COLUMN LastName STRING(MAX);
