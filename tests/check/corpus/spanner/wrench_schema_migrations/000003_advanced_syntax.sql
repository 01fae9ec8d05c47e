-- source: https://github.com/RoryQ/wrench/blob/d5a82339248c98e4cc3ef5c317a22dbaa1acf983/cmd/testdata/schema_test/migrations/000003_advanced_syntax.sql
CREATE TABLE AdvancedSyntax (
    Id INT64 NOT NULL,
    Data JSON,
    GeneratedColumn STRING(MAX) AS (JSON_VALUE(Data, '$.name')) STORED,
    CONSTRAINT ValidId CHECK (Id > 0)
) PRIMARY KEY(Id);
