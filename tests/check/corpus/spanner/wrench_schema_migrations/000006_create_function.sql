-- source: https://github.com/RoryQ/wrench/blob/9cab25aeb63555ca691a1aed3ee75bb47c200bf5/cmd/testdata/schema_test/migrations/000006_create_function.sql
CREATE FUNCTION AddOne(x INT64) RETURNS INT64 AS (x + 1);
