-- source: https://github.com/RoryQ/wrench/blob/9cab25aeb63555ca691a1aed3ee75bb47c200bf5/cmd/testdata/schema_test/migrations/000007_create_index.sql
CREATE INDEX IX_Singers_FirstName ON Singers(FirstName);
