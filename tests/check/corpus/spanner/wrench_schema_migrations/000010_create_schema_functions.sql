-- source: https://github.com/RoryQ/wrench/blob/777c43655bd137e8192d35965397bf1313a946e1/cmd/testdata/schema_test/migrations/000010_create_schema_functions.sql
CREATE FUNCTION my_schema.AddTwo(x INT64) RETURNS INT64 AS (x + 2);
CREATE FUNCTION my_schema.Multiply(x INT64, y INT64) RETURNS INT64 AS (x * y);
