-- source: https://github.com/RoryQ/wrench/blob/9cab25aeb63555ca691a1aed3ee75bb47c200bf5/cmd/testdata/schema_test/migrations/000003_create_view.sql
CREATE VIEW SingerNames
SQL SECURITY INVOKER
AS SELECT
   Singers.SingerId AS SingerId,
   Singers.FirstName AS Name
FROM Singers;
